package transcript

import (
	"os"
	"syscall"
)

// pseudoFSMagic are the statfs(2) types of Linux's pseudo file systems,
// whose trees are the system's state rather than anyone's files: proc,
// sysfs, devpts, cgroup and cgroup2, debugfs, tracefs, securityfs, bpf,
// configfs, pstore, efivarfs, binfmt_misc, fusectl, mqueue, hugetlbfs,
// autofs and nsfs.
var pseudoFSMagic = map[int64]bool{
	0x9fa0: true, 0x62656572: true, 0x1cd1: true, 0x27e0eb: true, 0x63677270: true,
	0x64626720: true, 0x74726163: true, 0x73636673: true, 0xcafe4a11: true, 0x62656570: true,
	0x6165676c: true, 0xde5e81e4: true, 0x42494e4d: true, 0x65735543: true, 0x19800202: true,
	0x958458f6: true, 0x0187: true, 0x6e736673: true,
}

// pseudoFSType reports whether the folder at path is on a pseudo file
// system.
func pseudoFSType(path string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(path, &st) == nil && pseudoFSMagic[int64(st.Type)]
}

// pseudoFSFile reports whether the open file f is on a pseudo file
// system.
func pseudoFSFile(f *os.File) bool {
	c, err := f.SyscallConn()
	if err != nil {
		return false
	}
	pseudo := false
	c.Control(func(fd uintptr) {
		var st syscall.Statfs_t
		pseudo = syscall.Fstatfs(int(fd), &st) == nil && pseudoFSMagic[int64(st.Type)]
	})
	return pseudo
}
