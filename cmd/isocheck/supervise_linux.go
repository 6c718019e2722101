//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// setDeathSignal has the kernel kill the child when its supervisor dies,
// even by SIGKILL, when no code of the supervisor runs to stop it. The
// runtime checks, right after setting it, that the parent did not die
// before, so a supervisor killed while starting the child is covered too.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
