//go:build !linux

package main

import "os/exec"

// setDeathSignal does nothing where the kernel cannot signal a child at
// its parent's death; the child's lifeline (see watchSupervisor) stops it.
func setDeathSignal(cmd *exec.Cmd) {}
