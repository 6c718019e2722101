//go:build unix

package nemesis

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
	sigKill = syscall.SIGKILL
)

func signal(pid int, sig syscall.Signal) error {
	return syscall.Kill(pid, sig)
}

// awaitExit waits until the process pid has exited: it is gone, or a
// zombie waiting for a parent that is not the nemesis to reap it.
func awaitExit(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if exited(pid) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process still runs %v after SIGKILL", timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exited(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	// Where there is a /proc (Linux), its stat tells a zombie (state Z)
	// or a dead process (X): "PID (COMM) STATE ...", COMM may hold spaces.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err) && dirExists("/proc/self")
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
