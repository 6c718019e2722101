//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// residentMemory is the process's resident set size, as the kernel counts
// it (the second field of /proc/self/statm, in pages); the Go runtime's
// own figure when /proc cannot be read.
func residentMemory() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err == nil {
		if f := bytes.Fields(b); len(f) > 1 {
			if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	return runtimeMemory()
}

// peakResidentMemory is the process's largest resident set size so far.
func peakResidentMemory() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return residentMemory()
	}
	return ru.Maxrss * 1024 // Linux counts it in KiB
}

// totalMemory is the machine's memory, or 0 if unknown.
func totalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(uint64(si.Totalram) * uint64(si.Unit))
}
