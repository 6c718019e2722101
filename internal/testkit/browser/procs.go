package browser

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// processesUsing returns the ids of the processes other than this one
// whose command line has an argument containing s (on Linux, through
// /proc; nil elsewhere). Chromium passes --user-data-dir to each of its
// helper processes, so a unique profile directory finds them all.
func processesUsing(s string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if bytes.Contains(arg, []byte(s)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// killProcessesUsing kills, by id, every process whose command line
// mentions dir, and keeps looking until a few looks in a row find none
// (a helper may fork as its parent dies) or two seconds have passed.
func killProcessesUsing(dir string) {
	const quietLooks = 3
	deadline := time.Now().Add(2 * time.Second)
	for quiet := 0; quiet < quietLooks && time.Now().Before(deadline); {
		pids := processesUsing(dir)
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		if len(pids) == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}
