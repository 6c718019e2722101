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
func anonHugeKiB(t *testing.T) int { return procKiB(t, "/proc/self/smaps_rollup", "AnonHugePages:") }

// procKiB is the figure, in KiB, that file gives after field, or skips
// t where the system does not tell it.
func procKiB(t *testing.T, file, field string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Skipf("no %s in %s", field, file)
	return 0
}

// TestAlloc: an Array, large or small, is zero and usable, and Free
// hands a large one back to the system: the process's resident memory
// falls by about its size.
func TestAlloc(t *testing.T) {
	small := Alloc[int64](10)
	small.S[9] = 1
	small.Free()
	if small.S != nil {
		t.Fatal("S is still set after Free")
	}
	const n = 4 * MinBytes / 8
	a := Alloc[int64](n)
	if len(a.S) != n {
		t.Fatalf("len %d, want %d", len(a.S), n)
	}
	for i := range a.S {
		if a.S[i] != 0 {
			t.Fatalf("element %d is %d, want 0", i, a.S[i])
		}
		a.S[i] = int64(i)
	}
	if runtime.GOOS != "linux" {
		a.Free()
		return
	}
	before := residentKiB(t)
	a.Free()
	if after := residentKiB(t); before-after < n*8/1024*9/10 {
		t.Errorf("resident memory %d KiB before Free, %d after: the %d KiB were not handed back", before, after, n*8/1024)
	}
}

// residentKiB is the process's resident memory, in KiB.
func residentKiB(t *testing.T) int { return procKiB(t, "/proc/self/status", "VmRSS:") }
