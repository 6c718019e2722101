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

// availableMemory is the memory the process could still take before the
// kernel runs out: the machine's available memory (MemAvailable in
// /proc/meminfo: free memory and caches it can drop), or less where the
// process's cgroup (v2 memory.max, v1 memory.limit_in_bytes) has less
// left. It returns -1 when the system does not say.
func availableMemory() int64 {
	avail := int64(-1)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte("MemAvailable:")); ok {
				if f := bytes.Fields(rest); len(f) > 0 {
					if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
						avail = kb * 1024
					}
				}
				break
			}
		}
	}
	for _, files := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, okLimit := readBytesFile(files[0])
		used, okUsed := readBytesFile(files[1])
		if !okLimit || !okUsed || limit >= 1<<60 {
			continue // no such cgroup, or no limit ("max", or v1's huge number)
		}
		if left := max(limit-used, 0); avail < 0 || left < avail {
			avail = left
		}
		break
	}
	return avail
}

// readBytesFile reads a file that holds one number of bytes.
func readBytesFile(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil
}
