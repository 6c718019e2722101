package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/internal/testkit/testsize"
)

func TestRepeatCase(t *testing.T) {
	tests := []struct {
		fraction float64
		writers  int
		name     string
	}{
		{0, 0, "unique"},
		{0.1, 2, "fraction=0.1 writers=2"},
		{1, 16, "fraction=1 writers=16"},
	}
	for _, tt := range tests {
		if got := repeatCase(tt.fraction, tt.writers); got != tt.name {
			t.Errorf("repeatCase(%g, %d) = %q, want %q", tt.fraction, tt.writers, got, tt.name)
		}
		f, w, ok := parseRepeatCase(tt.name)
		if !ok || f != tt.fraction || w != tt.writers {
			t.Errorf("parseRepeatCase(%q) = %g, %d, %v", tt.name, f, w, ok)
		}
	}
	for _, bad := range []string{"", "fraction=0.1", "writers=2 fraction=0.1", "fraction=x writers=2", "GeneralRW"} {
		if _, _, ok := parseRepeatCase(bad); ok {
			t.Errorf("parseRepeatCase(%q) accepted", bad)
		}
	}
}

func TestRepeatPointHarder(t *testing.T) {
	stuck := repeatPoint{n: 10_000, fraction: 0.5, writers: 4}
	tests := []struct {
		p    repeatPoint
		want bool
	}{
		{repeatPoint{10_000, 0.5, 4}, true},
		{repeatPoint{10_000, 1, 4}, true},
		{repeatPoint{10_000, 0.5, 16}, true},
		{repeatPoint{100_000, 1, 16}, true},
		{repeatPoint{10_000, 0.1, 16}, false},
		{repeatPoint{10_000, 1, 2}, false},
		{repeatPoint{2_000, 1, 16}, false},
	}
	for _, tt := range tests {
		if got := tt.p.harder(stuck); got != tt.want {
			t.Errorf("%+v harder than %+v: %v, want %v", tt.p, stuck, got, tt.want)
		}
	}
}

// repeatRows are rows of the repeat experiment at two sizes: the unique
// history satisfied at every level, the folds satisfied, or errors as
// long as the checker refuses repeated values.
func repeatRows(foldStatus string) []Row {
	var rows []Row
	for _, n := range []int{10_000, 100_000} {
		for _, l := range []string{"ser", "si"} {
			add := func(f float64, w int, status string) {
				wall := time.Duration(n/10+int(100*f)*w) * time.Millisecond
				r := Row{Experiment: "repeat", Case: repeatCase(f, w), Axis: "fraction", X: strconv.FormatFloat(f, 'g', -1, 64), Checker: "isocheck",
					Level: l, Variant: "default", Rep: 1, Txns: n,
					Measurement: Measurement{Status: status, Wall: wall, MaxRSS: int64(n) << 10}}
				if status == StatusError {
					r.ExitCode, r.MaxRSS, r.Detail = 2, 20<<20, "isocheck: h.jsonl:3: transaction T2 writes 0=1, which transaction T1 (h.jsonl:2) also writes: written values must be unique per key"
				}
				rows = append(rows, r)
			}
			add(0, 0, StatusSatisfied)
			for _, w := range repeatWriters {
				for _, f := range repeatFractions {
					add(f, w, foldStatus)
				}
			}
		}
	}
	return rows
}

// TestPlotRepeat draws and summarizes rows of the repeat experiment,
// with folds checked and with folds refused.
func TestPlotRepeat(t *testing.T) {
	m := Machine{CPU: "Test CPU", Cores: 2, MemBytes: 1 << 30, Version: "v1"}
	for _, tt := range []struct {
		name, status string
		summary      []string
	}{
		{"checked", StatusSatisfied, []string{
			"| 10k | SER | 2 | 1.00 s | 1.02 s | 1.10 s | 1.20 s | 10 MiB → 10 MiB |",
			"| 100k | SI | 16 | 10 s | 10 s | 11 s | 12 s | 98 MiB → 98 MiB |",
		}},
		{"refused", StatusError, []string{
			"| 10k | SER | 4 | 1.00 s | error after 1.04 s | error after 1.20 s | error after 1.40 s | 10 MiB → – |",
			"36 folded histories were not checked (error): the first said `isocheck: h.jsonl:3",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rows := repeatRows(tt.status)
			files, err := plotRepeat(rows, m, dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, filepath.Base(f))
				if st, err := os.Stat(f); err != nil || st.Size() == 0 {
					t.Errorf("%s missing or empty: %v", f, err)
				}
			}
			want := []string{"repeat-time-10k.png", "repeat-time-10k.svg", "repeat-memory-10k.png", "repeat-memory-10k.svg",
				"repeat-time-100k.png", "repeat-time-100k.svg", "repeat-memory-100k.png", "repeat-memory-100k.svg"}
			if !slices.Equal(names, want) {
				t.Errorf("files %q, want %q", names, want)
			}
			s := Summary(map[string][]Row{"repeat": rows}, m, "")
			for _, w := range append(tt.summary, "### Repeated values") {
				if !strings.Contains(s, w) {
					t.Errorf("summary lacks %q:\n%s", w, s)
				}
			}
			if tt.status == StatusSatisfied && strings.Contains(s, "not checked") {
				t.Errorf("summary reports failures:\n%s", s)
			}
		})
	}
	// No rows, no plots.
	if files, err := plotRepeat(nil, m, t.TempDir()); err != nil || len(files) != 0 {
		t.Errorf("plotRepeat(nil) = %q, %v", files, err)
	}
}

// TestRunRepeat runs the repeat experiment at tiny scale on a freshly
// built isocheck, 5 s a check: the unique history satisfies every level;
// each fold satisfies it too, or runs out of time (or is skipped after a
// smaller fold did), or, while the checker refuses repeated values, is
// an error row that says so. The plots are drawn, and drawn again from
// the CSV file. By default it folds a tenth and half of the reads onto 2
// and 16 writers; make test-long adds every fold of the experiment, among
// them those that run out of time (all the reads onto 4 writers).
func TestRunRepeat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds isocheck and checks up to thirty histories, 5 s each at most")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build isocheck with")
	}
	if !testsize.Long() {
		defer func(f []float64, w []int) { repeatFractions, repeatWriters = f, w }(repeatFractions, repeatWriters)
		repeatFractions, repeatWriters = []float64{0.1, 0.5}, []int{2, 16}
	}
	run := runTiny(t, "repeat", 5*time.Second)
	out, rep, rows := run.out, run.outputs, run.rows
	levels := repeatLevels(Tiny)
	if want := len(levels) * (1 + len(repeatFractions)*len(repeatWriters)); len(rows) != want {
		t.Fatalf("%d rows, want %d\n%s", len(rows), want, run.log)
	}
	for _, r := range rows {
		fraction, writers, ok := parseRepeatCase(r.Case)
		if !ok || r.Txns != 500 || r.Axis != "fraction" || !slices.Contains(levels, r.Level) {
			t.Errorf("row %+v", r)
			continue
		}
		switch {
		case r.Status == StatusSatisfied:
		case writers > 0 && (r.Status == StatusTimeout || r.Status == StatusSkipped):
		case writers > 0 && r.Status == StatusError && strings.Contains(r.Detail, "unique per key"):
			// The checker does not take repeated values yet.
		default:
			t.Errorf("%s, fraction %g, %d writers: %s (%s)", strings.ToUpper(r.Level), fraction, writers, r.Status, r.Detail)
		}
	}
	for _, name := range []string{"repeat-time-500.png", "repeat-memory-500.svg", "summary.md"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	if !strings.Contains(rep.Summary, "| 500 | SER | 2 |") {
		t.Errorf("summary lacks the SER row:\n%s", rep.Summary)
	}
	if _, err := Replot(out); err != nil {
		t.Fatal(err)
	}
}
