package harness

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExploreOptionsArgs(t *testing.T) {
	tests := []struct {
		opts ExploreOptions
		want string
	}{
		{ExploreOptions{App: "tpcc", Sessions: 3, Txns: 2, Seed: 5, Level: "cc"},
			"explore --json --app tpcc --sessions 3 --txns 2 --seed 5 --level cc"},
		{ExploreOptions{App: "twitter", Sessions: 1, Txns: 1, Seed: 1, Level: "cc", Base: "true", Timeout: 15 * time.Second},
			"explore --json --app twitter --sessions 1 --txns 1 --seed 1 --level cc --base true --timeout 15s"},
		{ExploreOptions{App: "wikipedia", Sessions: 3, Txns: 3, Seed: 2, Level: "cc", DFS: true, Timeout: 10 * time.Minute},
			"explore --json --app wikipedia --sessions 3 --txns 3 --seed 2 --level cc --dfs --timeout 10m0s"},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.opts.Args(), " "); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.opts, got, tt.want)
		}
	}
}

func TestMeasureExploreStatuses(t *testing.T) {
	dir := t.TempDir()
	// A fake isocheck: its report depends on the application.
	fake := filepath.Join(dir, "isocheck")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --app ] && app=$2; shift; done
case "$app" in
ok) echo '{"histories":7,"end_states":9,"blocked":1,"failed":0,"complete":true,"elapsed_ms":12.5,"peak_rss_bytes":1048576}'; exit 0;;
broken) echo '{"histories":7,"end_states":7,"failed":2,"complete":true,"elapsed_ms":3}'; exit 1;;
slow) echo '{"histories":0,"end_states":50,"complete":false,"elapsed_ms":1000}'; exit 3;;
slowbroken) echo '{"histories":4,"end_states":50,"failed":1,"complete":false,"elapsed_ms":1000}'; exit 1;;
memory) echo 'isocheck explore: out of memory' >&2; echo '{"histories":1,"end_states":1,"complete":false,"elapsed_ms":10}'; exit 3;;
garbled) echo 'not json'; exit 0;;
usage) echo 'isocheck explore: --app' >&2; exit 2;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		app        string
		wantStatus string
		wantStats  Stats
	}{
		{"ok", StatusSatisfied, Stats{Histories: 7, EndStates: 9, Blocked: 1, Elapsed: 12500 * time.Microsecond}},
		{"broken", StatusViolated, Stats{Histories: 7, EndStates: 7, Failed: 2, Elapsed: 3 * time.Millisecond}},
		{"slow", StatusTimeout, Stats{EndStates: 50, Elapsed: time.Second}},
		{"slowbroken", StatusTimeout, Stats{Histories: 4, EndStates: 50, Failed: 1, Elapsed: time.Second}},
		{"memory", StatusNoVerdict, Stats{Histories: 1, EndStates: 1, Elapsed: 10 * time.Millisecond}},
		{"garbled", StatusError, Stats{}},
		{"usage", StatusError, Stats{}},
	}
	for _, tt := range tests {
		t.Run(tt.app, func(t *testing.T) {
			m, err := MeasureExplore(context.Background(), fake, ExploreOptions{App: tt.app, Sessions: 1, Txns: 1, Seed: 1, Level: "cc", Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != tt.wantStatus || m.Stats != tt.wantStats {
				t.Errorf("got %q %+v, want %q %+v (%s)", m.Status, m.Stats, tt.wantStatus, tt.wantStats, m.Detail)
			}
			if tt.app == "ok" && m.MaxRSS < 1<<20 {
				t.Errorf("peak memory %d, below the report's", m.MaxRSS)
			}
		})
	}
}

// fig14Row is a row of explore-fig14 for the summary's tests.
func fig14Row(app string, seed int64, variant, status string, ms float64, histories, endStates int) Row {
	return Row{Experiment: "explore-fig14", Case: app, X: "3x3", Variant: variant, Checker: "isocheck", Rep: 1, Txns: 9, Seed: seed,
		Measurement: Measurement{Status: status, Wall: time.Duration(ms * float64(time.Millisecond)), MaxRSS: 30 << 20,
			Stats: Stats{Histories: histories, EndStates: endStates, Elapsed: time.Duration(ms * float64(time.Millisecond))}}}
}

func TestExploreFig14Summary(t *testing.T) {
	rows := []Row{
		fig14Row("tpcc", 1, "RC", StatusSatisfied, 400, 500, 500),
		fig14Row("tpcc", 1, "RA", StatusSatisfied, 200, 100, 100),
		fig14Row("tpcc", 1, "CC", StatusViolated, 100, 50, 50),
		fig14Row("tpcc", 1, "RA+CC", StatusViolated, 300, 50, 100),
		fig14Row("tpcc", 1, "RC+CC", StatusSatisfied, 1000, 49, 500), // a mismatch
		fig14Row("tpcc", 1, "true+CC", StatusTimeout, 15000, 0, 900),
		fig14Row("tpcc", 1, "DFS(CC)", StatusTimeout, 15000, 70, 70),
		fig14Row("twitter", 1, "RC", StatusTimeout, 600000, 5, 5),
		fig14Row("twitter", 1, "CC", StatusSatisfied, 10, 8, 8),
		fig14Row("twitter", 1, "RA+CC", StatusSatisfied, 50, 8, 8),
		fig14Row("twitter", 1, "RC+CC", StatusTimeout, 15000, 0, 900),
		fig14Row("twitter", 1, "true+CC", StatusSkipped, 0, 0, 0),
	}
	var b strings.Builder
	exploreFig14Summary(&b, rows)
	s := b.String()
	for _, want := range []string{
		"| CC | 2/2 | 0 | 55 ms | 100 ms | 30 MiB | 58 | 58 | 1 | – |",
		"| RA+CC | 2/2 | 0 | 175 ms | 300 ms | 30 MiB | 108 | 58 | 1 | 4.0× (2 programs) |", // (3 + 5) / 2
		"| RC+CC | 1/2 | 1 |",
		"| true+CC | 0/2 | 2 (1 skipped) |",
		"**ERROR** tpcc #1: RC+CC kept 49 histories, CC 50",
		"1 mismatches",
		"**not shown**, 1 runs did not finish within the limit: twitter #1 under RC (timeout)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}

	// Every count consistent: no error, and the target met.
	rows = slices.DeleteFunc(slices.Clone(rows), func(r Row) bool {
		return r.Variant == "RC+CC" && r.Case == "tpcc" || r.Variant == "RC" && r.Case == "twitter"
	})
	b.Reset()
	exploreFig14Summary(&b, rows)
	if s := b.String(); strings.Contains(s, "ERROR") || !strings.Contains(s, "0 mismatches") || !strings.Contains(s, "met, every one finished (the slowest in 400 ms)") {
		t.Errorf("summary of consistent counts:\n%s", s)
	}
}

func TestExploreFig15Summary(t *testing.T) {
	row := func(axis, x string, seed int64, status string, ms float64) Row {
		r := fig14Row("tpcc", seed, "CC", status, ms, 1, 1)
		r.Experiment, r.Axis, r.X = "explore-fig15", axis, x
		return r
	}
	rows := []Row{
		row("sessions", "1", 1, StatusSatisfied, 2), row("sessions", "1", 2, StatusSatisfied, 4),
		row("sessions", "2", 1, StatusSatisfied, 3000), row("sessions", "2", 2, StatusTimeout, 60000),
	}
	var b strings.Builder
	exploreFig15Summary(&b, rows)
	want := "| TPC-C, sessions (3 transactions each) | 3.00 ms, 30 MiB | 32 s, 30 MiB (1/2 timed out) |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

func TestCSVRoundTripExplore(t *testing.T) {
	m := Machine{CPU: "Test CPU", Cores: 2, MemBytes: 1 << 30, Version: "v2"}
	rows := []Row{fig14Row("courseware", 3, "CC+SI", StatusViolated, 12.5, 7, 9)}
	rows[0].Stats.Failed, rows[0].Stats.Blocked, rows[0].ExitCode = 3, 1, 1
	var buf bytes.Buffer
	if err := WriteCSV(&buf, m, rows); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := rows[0]
	want.Stats.Transactions = want.Txns
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}

	// A file written before the explore columns is still read.
	var old bytes.Buffer
	old.WriteString(strings.Join(sqlHeader, ",") + "\n")
	old.WriteString("sql-txns,tpcc,txns/session,5,default,isocheck,ser,1,15,satisfied,0,10.000,1024,0,0,0,0,0,0,0,0,0,0.50,cpu,2,1024,v1,sqlite,1,4,0,2.000\n")
	if _, got, err := ReadCSV(&old); err != nil || len(got) != 1 || got[0].Seed != 1 || got[0].Stats.Steps != 4 {
		t.Errorf("a CSV file of the SQL columns: %+v, %v", got, err)
	}
}

// TestRunExplore runs explore-fig14 and explore-fig15 at tiny scale on a
// freshly built isocheck, and checks the CSV files, plots and summary,
// and that the CSV files are enough to draw them again.
func TestRunExplore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds isocheck")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build isocheck with")
	}
	out := t.TempDir()
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Out:         out,
		Repo:        repoRoot(t),
		Binary:      isocheckBinary(t),
		Scale:       Tiny,
		Experiments: []string{"explore-fig14", "explore-fig15"},
		Log:         &log,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	fig14 := rep.Rows["explore-fig14"]
	if len(fig14) != len(fig14Variants) {
		t.Fatalf("%d rows of explore-fig14, want %d\n%s", len(fig14), len(fig14Variants), log.String())
	}
	for i, r := range fig14 {
		if r.Variant != fig14Variants[i].Name || r.Case != "twitter" || r.Seed != 1 || r.Txns != 4 || !solved(r) || r.Stats.Histories == 0 || r.MaxRSS == 0 {
			t.Errorf("row %+v", r)
		}
	}
	if fig15 := rep.Rows["explore-fig15"]; len(fig15) != 4 {
		t.Errorf("%d rows of explore-fig15, want 4 (2 axes × 2 sizes)\n%s", len(fig15), log.String())
	}
	if _, errs := historyMismatches(fig14); len(errs) > 0 {
		t.Errorf("the counts of the configurations disagree: %q", errs)
	}
	files := []string{"explore-fig14.csv", "explore-fig15.csv", "summary.md"}
	for _, p := range []string{"explore-fig14-time", "explore-fig14-memory", "explore-fig14-end-states", "explore-fig15-time", "explore-fig15-memory"} {
		files = append(files, p+".png", p+".svg")
	}
	for _, name := range files {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	for _, want := range []string{"| CC | 1/1 | 0 |", "| DFS(CC) | 1/1 |", "0 mismatches", "Target: none of the programs takes over 10 minutes under RC, RA, CC, SI or SER: met", "| Wikipedia, sessions (3 transactions each) |"} {
		if !strings.Contains(rep.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, rep.Summary)
		}
	}
	again, err := Replot(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again.Summary, "| CC | 1/1 | 0 |") {
		t.Errorf("replotted summary:\n%s", again.Summary)
	}
}
