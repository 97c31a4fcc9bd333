//go:build linux

package mcpclient

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// A server carries the death signal of mcpcost, not of the thread of the
// goroutine that launched it: started from a goroutine locked to its
// thread that then returns (the runtime ends that thread), it runs on.
func TestDeathSignalOutlivesThread(t *testing.T) {
	// Three times: a locked goroutine that returns on the main thread
	// wedges it rather than ending it, which may happen once.
	for i := 0; i < 3; i++ {
		cmd := exec.Command("sleep", "60")
		setProcessGroup(cmd)
		started := make(chan error)
		var track *tracked
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			var err error
			track, err = startTracked(cmd)
			started <- err
		}()
		if err := <-started; err != nil {
			t.Fatal(err)
		}
		if cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
			t.Fatalf("Pdeathsig %v", cmd.SysProcAttr.Pdeathsig)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			t.Fatalf("launch %d: the server died with the launching thread: %v", i+1, err)
		case <-time.After(500 * time.Millisecond):
		}
		cmd.Process.Kill()
		<-exited
		track.reapLeftovers(0) // unregisters it, for the other tests' captures
	}
}
