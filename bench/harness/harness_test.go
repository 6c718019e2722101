package harness

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
)

func TestWriteCSV(t *testing.T) {
	m := Machine{CPU: "Test CPU, 3 GHz", Cores: 2, MemBytes: 1 << 30, Version: "abc123-dirty"}
	tests := []struct {
		name string
		rows []Row
		want [][]string // the columns named by header, per row
	}{
		{name: "header only"},
		{
			name: "isocheck and a comparison",
			rows: []Row{
				{Experiment: "fig5", Case: "sessions=5", Axis: "sessions", X: "5", Variant: "default", Checker: "isocheck", Level: "si", Rep: 1, Txns: 500,
					Measurement: Measurement{Status: StatusSatisfied, Wall: 1500 * time.Microsecond, MaxRSS: 2048, Load1: 1.5,
						Stats: Stats{ParseMS: 0.5, SolveMS: 1.25, Constraints: 7, ConstraintsRemaining: 1, UnknownEdges: 9, UnknownEdgesRemaining: 2}}},
				{Experiment: "fig5", Case: "sessions=5", Checker: "dbcop verify {}", Level: "si", Rep: 1, Txns: 500,
					Measurement: Measurement{Status: StatusTimeout, ExitCode: -1, Wall: 2 * time.Second}},
			},
			want: [][]string{
				{"fig5", "sessions=5", "sessions", "5", "default", "isocheck", "si", "1", "500", "satisfied", "0", "1.500", "2048",
					"0.500", "0.000", "0.000", "0.000", "1.250", "7", "1", "9", "2", "1.50", "Test CPU, 3 GHz", "2", "1073741824", "abc123-dirty"},
				{"fig5", "sessions=5", "", "", "", "dbcop verify {}", "si", "1", "500", "timeout", "-1", "2000.000", "0",
					"0.000", "0.000", "0.000", "0.000", "0.000", "0", "0", "0", "0", "0.00", "Test CPU, 3 GHz", "2", "1073741824", "abc123-dirty"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, m, tt.rows); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if !slices.Equal(recs[0], header) {
				t.Errorf("header %q, want %q", recs[0], header)
			}
			if len(recs)-1 != len(tt.want) {
				t.Fatalf("%d rows, want %d", len(recs)-1, len(tt.want))
			}
			for i, want := range tt.want {
				if !slices.Equal(recs[i+1], want) {
					t.Errorf("row %d:\n got %q\nwant %q", i, recs[i+1], want)
				}
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	m := Machine{CPU: "Test CPU", Cores: 4, MemBytes: 8 << 30, Version: "v1"}
	rows := []Row{
		{Experiment: "scaling", Case: "10k", X: "10000", Variant: "default", Checker: "isocheck", Level: "si", Rep: 2, Txns: 10000,
			Measurement: Measurement{Status: StatusViolated, ExitCode: 1, Wall: 1234 * time.Millisecond, MaxRSS: 5 << 20, Load1: 2.25,
				Stats: Stats{ParseMS: 1, ConstructMS: 2, PruneMS: 3, EncodeMS: 4, SolveMS: 5, Transactions: 10000, Constraints: 6, ConstraintsRemaining: 7, UnknownEdges: 8, UnknownEdgesRemaining: 9}}},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, m, rows); err != nil {
		t.Fatal(err)
	}
	gotM, got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if gotM != m || len(got) != 1 || got[0] != rows[0] {
		t.Errorf("read back %+v %+v, want %+v %+v", gotM, got, m, rows)
	}
	if _, _, err := ReadCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("no error for a CSV file of another header")
	}
}

func TestSubstitute(t *testing.T) {
	tests := []struct {
		cmd, path, want string
	}{
		{"dbcop verify {}", "/tmp/h.dbcop", "dbcop verify /tmp/h.dbcop"},
		{"checker", "/tmp/h.txt", "checker /tmp/h.txt"},
		{"cp {} {}.bak", "/tmp/a b", "cp '/tmp/a b' '/tmp/a b'.bak"},
		{"cat {}", "/tmp/it's", `cat '/tmp/it'\''s'`},
		{"x --in={} --level si", "h.edn", "x --in=h.edn --level si"},
	}
	for _, tt := range tests {
		if got := Substitute(tt.cmd, tt.path); got != tt.want {
			t.Errorf("Substitute(%q, %q) = %q, want %q", tt.cmd, tt.path, got, tt.want)
		}
	}
}

// TestSubstituteRuns checks that the shell receives the path as one word,
// whatever it holds.
func TestSubstituteRuns(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"plain.txt", "with space.txt", "it's $HOME `x`.txt"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("ok"), 0o644); err != nil {
			t.Fatal(err)
		}
		c := Comparison{Command: `test -f {} && test "$(cat {})" = ok`}
		m, err := MeasureCommand(context.Background(), 0, c.Argv(path))
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != "exit 0" {
			t.Errorf("%q: status %q, want exit 0 (%s)", name, m.Status, m.Detail)
		}
	}
}

func TestMeasureCommand(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		timeout    time.Duration
		wantStatus string
		wantCode   int
	}{
		{"passes", []string{"/bin/sh", "-c", "exit 0"}, 0, "exit 0", 0},
		{"fails", []string{"/bin/sh", "-c", "echo bad >&2; exit 1"}, 0, "exit 1", 1},
		{"times out", []string{"/bin/sh", "-c", "sleep 5"}, 50 * time.Millisecond, StatusTimeout, -1},
		// The group is killed: a grandchild holding the output open
		// does not keep the run going.
		{"times out with a grandchild", []string{"/bin/sh", "-c", "sleep 5 & wait"}, 50 * time.Millisecond, StatusTimeout, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := MeasureCommand(context.Background(), tt.timeout, tt.argv)
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != tt.wantStatus || m.ExitCode != tt.wantCode {
				t.Errorf("status %q, exit code %d; want %q, %d", m.Status, m.ExitCode, tt.wantStatus, tt.wantCode)
			}
			if m.Wall >= 5*time.Second {
				t.Errorf("ran %v: the timeout did not stop it", m.Wall)
			}
		})
	}
}

// TestRunChildCanceled checks that ending the context (Ctrl-C of
// isobench) kills the child's group rather than leaving it running.
func TestRunChildCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := RunChild(ctx, 0, []string{"/bin/sh", "-c", "sleep 5 & wait"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Wall >= 5*time.Second {
		t.Errorf("ran %v, stopped %v: the canceled context did not kill the group", res.Wall, res.TimedOut)
	}
}

func TestMeasureCommandMissing(t *testing.T) {
	if _, err := MeasureCommand(context.Background(), 0, []string{filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("no error for a command that does not exist")
	}
}

func TestMeasureCheckStatuses(t *testing.T) {
	dir := t.TempDir()
	// A fake isocheck: prints its JSON and exits with the status of the
	// file it checks.
	fake := filepath.Join(dir, "isocheck")
	script := `#!/bin/sh
for f; do :; done
case "$(cat "$f")" in
ok) echo '{"level":"SI","satisfied":true,"stats":{"parse_ms":1.5,"constraints":4,"constraints_remaining":1,"unknown_edges":6,"unknown_edges_remaining":2,"transactions":3}}'; exit 0;;
bad) echo '{"level":"SI","satisfied":false,"stats":{"solve_ms":2}}'; exit 1;;
garbled) echo 'not json'; exit 0;;
usage) echo 'isocheck: bad input' >&2; exit 2;;
slow) sleep 5;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		content    string
		wantStatus string
		wantStats  Stats
	}{
		{"ok", StatusSatisfied, Stats{ParseMS: 1.5, Constraints: 4, ConstraintsRemaining: 1, UnknownEdges: 6, UnknownEdgesRemaining: 2, Transactions: 3}},
		{"bad", StatusViolated, Stats{SolveMS: 2}},
		{"garbled", StatusError, Stats{}},
		{"usage", StatusError, Stats{}},
		{"slow", StatusTimeout, Stats{}},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			path := filepath.Join(dir, tt.content)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := MeasureCheck(context.Background(), 200*time.Millisecond, fake, CheckOptions{NoPrune: true}, path)
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != tt.wantStatus || m.Stats != tt.wantStats {
				t.Errorf("got %q %+v, want %q %+v (%s)", m.Status, m.Stats, tt.wantStatus, tt.wantStats, m.Detail)
			}
		})
	}
}

func TestCheckOptions(t *testing.T) {
	tests := []struct {
		opts    CheckOptions
		args    string
		variant string
	}{
		{CheckOptions{}, "check --json --stats --level si F", "default"},
		{CheckOptions{Level: "ser", NoPrune: true}, "check --json --stats --level ser --no-prune F", "no-prune"},
		{CheckOptions{NoPrune: true, AllPairs: true}, "check --json --stats --level si --no-prune --all-pairs F", "no-prune+all-pairs"},
		{CheckOptions{Solver: "eager"}, "check --json --stats --level si --solver eager F", "solver=eager"},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.opts.Args("F"), " "); got != tt.args {
			t.Errorf("%+v: args %q, want %q", tt.opts, got, tt.args)
		}
		if got := tt.opts.Variant(); got != tt.variant {
			t.Errorf("%+v: variant %q, want %q", tt.opts, got, tt.variant)
		}
	}
}

func TestParseEngines(t *testing.T) {
	tests := []struct {
		help string
		want []string
	}{
		{`  -solver string
    	for measurements: the solver's engine, one of [lazy] (default "lazy")`, []string{"lazy"}},
		{`  -solver string
    	the solver's engine, one of [lazy eager cdcl] (default "lazy")
  -stats`, []string{"lazy", "eager", "cdcl"}},
	}
	for _, tt := range tests {
		got, err := parseEngines(tt.help)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseEngines(%q) = %q, %v; want %q", tt.help, got, err, tt.want)
		}
	}
	if _, err := parseEngines("  -format string\n    \tone of [auto jsonl]\n"); err == nil {
		t.Error("no error for a help without --solver")
	}
}

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestRunEndToEnd runs the table3 experiment at tiny scale, without the
// corpus, with a comparison, on a freshly built isocheck, and checks the
// CSV, the plots and the summary.
func TestRunEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build isocheck with")
	}
	out := t.TempDir()
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Out:         out,
		Repo:        repoRoot(t),
		Scale:       Tiny,
		Experiments: []string{"table3"},
		Compare:     []Comparison{{Command: "test -s {}", Format: format.DBCop}},
		Timeout:     5 * time.Minute,
		Log:         &log,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	f, err := os.Open(filepath.Join(out, "table3.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(header, name) }
	var got []string
	for _, r := range recs[1:] {
		got = append(got, r[col("case")]+" "+r[col("variant")]+" "+r[col("checker")]+" "+r[col("status")])
		if r[col("checker")] == "isocheck" && (r[col("txns")] != "250" || r[col("version")] != rep.Machine.Version) {
			t.Errorf("row %q: txns %s, version %s", r, r[col("txns")], r[col("version")])
		}
	}
	want := []string{
		"GeneralRH default isocheck satisfied", "GeneralRH  test -s {} exit 0", "GeneralRH all-pairs isocheck satisfied",
		"GeneralRW default isocheck satisfied", "GeneralRW  test -s {} exit 0", "GeneralRW all-pairs isocheck satisfied",
		"GeneralWH default isocheck satisfied", "GeneralWH  test -s {} exit 0", "GeneralWH all-pairs isocheck satisfied",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"table3.png", "table3.svg", "summary.md"} {
		st, err := os.Stat(filepath.Join(out, name))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	if !strings.Contains(rep.Summary, "| GeneralWH | all-pairs | 250 |") {
		t.Errorf("summary lacks GeneralWH's all-pairs row:\n%s", rep.Summary)
	}

	// The CSV file is enough to draw the plots again.
	for _, name := range []string{"table3.png", "table3.svg", "summary.md"} {
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	again, err := Replot(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"table3.png", "table3.svg", "summary.md"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("replot: %s missing or empty: %v", name, err)
		}
	}
	if !strings.Contains(again.Summary, "| GeneralWH | all-pairs | 250 |") {
		t.Errorf("replotted summary lacks GeneralWH's all-pairs row:\n%s", again.Summary)
	}
}
