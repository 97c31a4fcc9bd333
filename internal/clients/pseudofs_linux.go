package clients

import (
	"os"
	"syscall"
)

// pseudoFilesystems names the Linux filesystems whose files are the
// kernel's state rather than stored bytes (statfs f_type, from
// linux/magic.h). Their files may pass for regular files and still never
// end (/sys), block until the kernel has something to say (/proc/kmsg,
// tracefs pipes), or change as they are read; a config is never one of
// them.
var pseudoFilesystems = map[uint32]string{
	0x9fa0:     "procfs",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x62656570: "configfs",
	0x0027e0eb: "cgroup",
	0x63677270: "cgroup2",
	0xcafe4a11: "bpf",
	0x6165676c: "pstore",
	0xde5e81e4: "efivarfs",
	0x00001cd1: "devpts",
	0x42494e4d: "binfmt_misc",
	0xf97cff8c: "selinuxfs",
	0x43415d53: "smackfs",
	0x5a3c69f0: "apparmorfs",
	0x65735543: "fusectl",
	0x09041934: "anon_inodefs",
	0x6e736673: "nsfs",
	0x19800202: "mqueue",
	0x67596969: "rpc_pipefs",
	0x50495045: "pipefs",
	0x534f434b: "sockfs",
	0x6c6f6f70: "binderfs",
	0x00009fa1: "openpromfs",
	0x00009fa2: "usbdevfs",
	0xabba1974: "xenfs",
}

// pseudoFS refuses an open file that lives on a pseudo filesystem
// (pseudoFilesystems). The file's descriptor is used in place, so that it
// stays non-blocking.
func pseudoFS(name string, f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fstatfs", Path: name, Err: serr}
	}
	if fs, ok := pseudoFilesystems[uint32(st.Type)]; ok {
		return &LimitError{Path: name, Msg: "a file of " + fs + ", a pseudo filesystem of the kernel, not a regular file: config files are read only when they are regular files"}
	}
	return nil
}
