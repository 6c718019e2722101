package hugepage

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMake: an array made large is usable and zero, and on Linux with
// transparent huge pages left to "madvise" or "always" the process's
// memory then holds huge pages.
func TestMake(t *testing.T) {
	s := Make[int32](MinBytes / 4 * 2)
	for i := range s {
		if s[i] != 0 {
			t.Fatalf("element %d is %d, want 0", i, s[i])
		}
		s[i] = int32(i)
	}
	small := Make[int64](10)
	small[9] = 1
	if runtime.GOOS != "linux" {
		return
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q)", mode)
	}
	if got := anonHugeKiB(t); got == 0 {
		t.Errorf("no huge pages after touching %d MiB asked for them", len(s)*4>>20)
	}
	runtime.KeepAlive(s)
}

// anonHugeKiB is the process's memory in huge pages, in KiB.
func anonHugeKiB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "AnonHugePages:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Skip("no AnonHugePages in smaps_rollup")
	return 0
}
