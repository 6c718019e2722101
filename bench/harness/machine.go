package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where the measurements ran.
type Machine struct {
	CPU      string // model name from /proc/cpuinfo
	Cores    int    // logical CPUs
	MemBytes int64  // MemTotal from /proc/meminfo
	Version  string // isocheck's git describe --always --dirty
}

// String is the machine in one line, for titles and captions.
func (m Machine) String() string {
	return fmt.Sprintf("%s, %d cores, %.0f GiB; isocheck %s", m.CPU, m.Cores, float64(m.MemBytes)/(1<<30), m.Version)
}

// DetectMachine reads the CPU model and memory from /proc and the version
// from git in repo. What cannot be read is "unknown" (or 0).
func DetectMachine(ctx context.Context, repo string) Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), Version: "unknown"}
	if v, ok := procField("/proc/cpuinfo", "model name"); ok {
		m.CPU = v
	}
	if v, ok := procField("/proc/meminfo", "MemTotal"); ok {
		if kb, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64); err == nil {
			m.MemBytes = kb * 1024
		}
	}
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = repo
	if out, err := cmd.Output(); err == nil {
		m.Version = strings.TrimSpace(string(out))
	}
	return m
}

// procField returns the value of the first "name: value" line of file.
func procField(file, name string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
