//go:build !linux

package main

// Where isocheck has no portable way to ask the system, the Go runtime's
// own figures stand in for it.

// residentMemory is the memory the Go runtime holds from the system.
func residentMemory() int64 { return runtimeMemory() }

// peakResidentMemory is the memory the Go runtime holds now: the peak is
// not known.
func peakResidentMemory() int64 { return runtimeMemory() }

// totalMemory is 0: unknown, so that --max-memory has no default.
func totalMemory() int64 { return 0 }

// availableMemory is -1: unknown.
func availableMemory() int64 { return -1 }
