package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/progress"
)

func TestTimeoutValue(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 0, false}, // seconds? milliseconds? a unit is required
		{"2.5", 0, false},
		{"0", 0, true},
		{"0s", 0, true},
		{"1ns", time.Nanosecond, true},
		{"2.5s", 2500 * time.Millisecond, true},
		{"90s", 90 * time.Second, true},
		{"10m", 10 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"-1", 0, false},
		{"-3s", 0, false},
		{"soon", 0, false},
		{"NaN", 0, false},
	}
	for _, c := range cases {
		var v timeoutValue
		err := v.Set(c.in)
		if (err == nil) != c.ok || c.ok && time.Duration(v) != c.want {
			t.Errorf("--timeout %s = %v, %v; want %v (ok %v)", c.in, time.Duration(v), err, c.want, c.ok)
		}
	}
}

func TestByteSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4GiB", 4 << 30, true},
		{"4gib", 4 << 30, true},
		{"500MB", 500e6, true},
		{"1.5G", 3 << 29, true},
		{"1KB", 1000, true},
		{"1000B", 1000, true},
		{"2 MiB", 2 << 20, true},
		{"1048576", 0, false}, // bytes? megabytes? a unit is required
		{"1000", 0, false},
		{"0", 0, true},
		{"0MB", 0, true},
		{"GiB", 0, false},
		{"B", 0, false},
		{"-1GB", 0, false},
		{"lots", 0, false},
		{"1e30TB", 0, false},
	}
	for _, c := range cases {
		var b byteSize
		err := b.Set(c.in)
		if (err == nil) != c.ok || c.ok && int64(b) != c.want {
			t.Errorf("--max-memory %s = %d, %v; want %d (ok %v)", c.in, int64(b), err, c.want, c.ok)
		}
	}
}

// TestLimitMessages: a value without its unit is refused with a message
// that suggests one.
func TestLimitMessages(t *testing.T) {
	var b byteSize
	if err := b.Set("1000"); err == nil || !strings.Contains(err.Error(), "1000MB") {
		t.Errorf("--max-memory 1000: %v", err)
	}
	var d timeoutValue
	if err := d.Set("90"); err == nil || !strings.Contains(err.Error(), "90s") {
		t.Errorf("--timeout 90: %v", err)
	}
}

// TestByteSizeString: a limit is echoed as the user wrote it, in the
// largest unit that divides it.
func TestByteSizeString(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1KB", 500e6: "500MB", 4 << 30: "4GiB", 1536 << 20: "1536MiB", 1023: "1023B", 2e12: "2TB"} {
		b := byteSize(n)
		if got := b.String(); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFormatBytes: a measured size never rounds to a misleading 0.0MiB.
func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1000B", 4096: "4KiB", 41 << 20: "41MiB", 42_000_000: "40.1MiB", 3 << 29: "1.5GiB", 1500: "1.5KiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestResidentMemory: the memory watched is the resident set the kernel
// reports, not the address space the Go runtime has reserved.
func TestResidentMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("compares with /proc/self/status")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	var kib int64
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	got, want := residentMemory(), kib<<10
	if want == 0 || got < want/2 || got > want*2 {
		t.Errorf("residentMemory() = %d, VmRSS %d", got, want)
	}
}

// TestMemoryLimitStop: a limit below what the process already uses stops
// the run at once, and the message gives the resident memory it decided
// on and the limit as given.
func TestMemoryLimitStop(t *testing.T) {
	cases := []struct {
		limit string
		stop  bool
	}{
		{"1KB", true},
		{"1MiB", true},
		{"1TiB", false},
	}
	for _, c := range cases {
		var l limits
		if err := l.maxMemory.Set(c.limit); err != nil {
			t.Fatal(err)
		}
		j := l.start(io.Discard)
		stopped := j.ctx.Err() != nil
		j.stop()
		if stopped != c.stop {
			t.Errorf("--max-memory %s: stopped %v, want %v", c.limit, stopped, c.stop)
			continue
		}
		if !c.stop {
			continue
		}
		msg := j.stopReason(j.ctx.Err())
		if !strings.HasPrefix(msg, "resource limit: resident memory ") || !strings.Contains(msg, "went past --max-memory "+c.limit+",") || strings.Contains(msg, "memory 0.0MiB") {
			t.Errorf("--max-memory %s: %q", c.limit, msg)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Minute: "1m", 2 * time.Hour: "2h", 90 * time.Second: "1m30s", 3 * time.Second: "3s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// FuzzLimitFlags: any --timeout or --max-memory is accepted as a
// non-negative value or refused with a message; none panics.
func FuzzLimitFlags(f *testing.F) {
	for _, s := range []string{"5", "1h30m", "0", "-1", "4GiB", "1e30TB", "NaN", "", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d timeoutValue
		if err := d.Set(s); err == nil && d < 0 {
			t.Errorf("--timeout %q = %v, negative", s, time.Duration(d))
		} else if err != nil && err.Error() == "" {
			t.Errorf("--timeout %q: an empty message", s)
		}
		var b byteSize
		if err := b.Set(s); err == nil && b < 0 {
			t.Errorf("--max-memory %q = %d, negative", s, b)
		}
	})
}

// TestNoVerdictReason: a checker's own reason stands when the job ran on
// (stopping the job afterwards does not count as a stop); a deadline
// says where it stopped and how to give it longer.
func TestNoVerdictReason(t *testing.T) {
	l := &limits{}
	j := l.start(io.Discard)
	j.stop()
	if got := j.noVerdictReason("resource limit: too many edges"); got != "resource limit: too many edges" {
		t.Errorf("a job that ran on: %q", got)
	}
	l = &limits{timeout: timeoutValue(time.Nanosecond)}
	j = l.start(io.Discard)
	progress.Start(j.ctx, "prune", 10, "constraints").Add(4)
	<-j.ctx.Done()
	j.stop()
	got := j.noVerdictReason("timed out")
	for _, want := range []string{"timed out after 1ns", "in stage prune (4 of 10 constraints)", "--timeout 1m"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

// TestReachabilityClocksPastMaxMemory: a history whose order of writes
// would need reachability clocks larger than half of --max-memory (here
// 20,000 blind writes of one key, each in its own session, two of which
// then read the first two writes in opposite orders, so that no order of
// writes is a witness and the search must decide: 40,010 nodes × 20,001
// sessions × 4 bytes, 3 GiB) gets no verdict, exit 3, with the figures,
// before the clocks are allocated; and --stats gives the stages with
// their peak memory.
func TestReachabilityClocksPastMaxMemory(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"w\", \"x\", %d]]}\n", i, i+1)
	}
	for s, vs := range [][]int{2: {2, 1}, 3: {1, 2}} {
		for _, v := range vs {
			fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"r\", \"x\", %d]]}\n", s, v)
		}
	}
	path := filepath.Join(t.TempDir(), "writers.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("check", "--level", "si", "--stats", "--max-memory", "1GiB", path)
	if code != exitNoVerdict || !strings.Contains(out, "reachability clocks of 3.0 GiB") || !strings.Contains(out, "20001 sessions") {
		t.Fatalf("exit %d, want %d with the clocks' figures\n%s%s", code, exitNoVerdict, out, errs)
	}
	for _, stage := range []string{"parse", "build polygraph", "order writes"} {
		if !regexp.MustCompile(`(?m)^  ` + stage + ` +\d+ ms +[0-9.]+(MiB|GiB)$`).MatchString(out) {
			t.Errorf("--stats lacks the stage %q with its time and memory:\n%s", stage, out)
		}
	}
}

// TestStatsStagesOnce: --stats lists each stage of the check once, and
// the explanation, which runs the checker again on parts of the history,
// as one line of its own.
func TestStatsStagesOnce(t *testing.T) {
	code, out, errs := runCmd("check", "--level", "ser", "--stats", "../../examples/write-skew.jsonl")
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
	}
	seen := make(map[string]int)
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z][a-z ]*[a-z]) +\d+ ms +[0-9.]+(?:KiB|MiB|GiB)$`).FindAllStringSubmatch(out, -1) {
		seen[m[1]]++
	}
	for _, stage := range []string{"parse", "build polygraph", "prune", "explain"} {
		if seen[stage] != 1 {
			t.Errorf("stage %q listed %d times, want once:\n%s", stage, seen[stage], out)
		}
	}
}

// TestAllLevelsShareTheTime: with --level all, a level that cannot
// answer in its share of --timeout (half the time left) gives no verdict
// and the stronger levels are still checked, each saying so; the summary
// names every level not decided rather than claim that none is broken.
// The history: 5,000 blind writes of x, each in its own session (12.5
// million constraints for PC and up), and a long fork through x and y
// (PC broken, CC kept): one reader saw the first write of x and not y's,
// the other y's and not x's, so that x's order is on the fork's cycle and
// must be searched.
func TestAllLevelsShareTheTime(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"w\", \"x\", %d]]}\n", i, i+1)
	}
	fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"w\", \"y\", 1]]}\n", n)
	fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"r\", \"x\", 1], [\"r\", \"y\", null]]}\n", n+1)
	fmt.Fprintf(&b, "{\"session\": %d, \"ops\": [[\"r\", \"y\", 1], [\"r\", \"x\", null]]}\n", n+2)
	path := filepath.Join(t.TempDir(), "fork.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("check", "--level", "all", "--timeout", "4s", path)
	if code != exitNoVerdict {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitNoVerdict, out, errs)
	}
	// CC (5,000 sessions of clocks) is quick, but may pass its own share
	// on a loaded machine or under the race detector: it is not asserted.
	for _, want := range []string{
		"PC    no verdict timed out in stage ",
		": its share of the time, ",
		"weakest level broken: none found; not decided: ",
		"PC, SI, SER, SSER\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// SSER's time is what SER leaves: a stage answers its deadline within
	// a few milliseconds, but a loaded machine (the race detector, tests
	// run side by side) may stretch that past SER's share and SSER's with
	// it. Every weaker level is checked all the same.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "not checked") && !strings.HasPrefix(line, "SSER ") {
			t.Errorf("a level was left unchecked: %q in\n%s", line, out)
		}
	}
}

// TestExplainTime: past --explain-time the verdict stands, with the
// checker's evidence, and the report says what the explanation left out
// and how to give it longer; --explain-time 0 gives the whole
// explanation.
func TestExplainTime(t *testing.T) {
	for _, c := range []struct {
		flag string
		cut  bool
	}{{"1ns", true}, {"0", false}} {
		code, out, errs := runCmd("explain", "--level", "ser", "--explain-time", c.flag, "../../examples/write-skew.jsonl")
		if code != exitViolated || !strings.Contains(out, "SER: VIOLATED: WriteSkew") {
			t.Fatalf("--explain-time %s: exit %d, want %d with the verdict\n%s%s", c.flag, code, exitViolated, out, errs)
		}
		note := strings.Contains(out, "explanation cut short at --explain-time") && strings.Contains(out, "--explain-time 0 for no limit")
		if note != c.cut || strings.Contains(out, "without any one of them") == c.cut {
			t.Errorf("--explain-time %s: cut short %v, want %v:\n%s", c.flag, note, c.cut, out)
		}
	}
}

// TestDefaultMaxMemoryCountsWhatIsFree: on Linux the default --max-memory
// is at most 80% of what the process could take (the memory available
// beside what it holds, or what its cgroup leaves), not of the machine's
// memory, which other processes may hold.
func TestDefaultMaxMemoryCountsWhatIsFree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the system's free memory is read on Linux only")
	}
	t.Setenv("GOMEMLIMIT", "")
	avail, total := availableMemory(), totalMemory()
	if avail <= 0 || total <= 0 || avail > total {
		t.Fatalf("available %d, total %d: want 0 < available <= total", avail, total)
	}
	def := defaultMaxMemory()
	// What is available moves between two readings: allow 10% of it.
	room := residentMemory() + availableMemory()
	if def <= 0 || def > total/10*8 || float64(def) > 0.8*float64(room)+0.1*float64(avail) {
		t.Errorf("default %d, with %d available and %d held (total %d): want at most 80%% of what the process could take", def, avail, residentMemory(), total)
	}
}
