package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeTemp writes content to a file of the test's and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// A write of 1, a failed cas(1,2) while the register holds 1, and a read
// of 1: linearizable when :fail means the cas did not happen (Jepsen,
// Knossos), not when it compared and found another value (Porcupine).
const failedCAS = `{:type :invoke, :f :write, :value 1, :process 0}
{:type :ok, :f :write, :value 1, :process 0}
{:type :invoke, :f :cas, :value [1 2], :process 1}
{:type :fail, :f :cas, :value [1 2], :process 1}
{:type :invoke, :f :read, :value nil, :process 2}
{:type :ok, :f :read, :value 1, :process 2}
`

func TestLWTCommand(t *testing.T) {
	empty := writeTemp(t, "empty.edn", "\n")
	nemesis := writeTemp(t, "nemesis.edn", "{:process :nemesis, :type :info, :f :kill, :value nil}\n")
	failed := writeTemp(t, "failed.edn", failedCAS)
	elleJSON := writeTemp(t, "cas.json", `[{"type": "invoke", "f": "write", "value": 1, "process": 0, "index": 0},
 {"type": "ok", "f": "write", "value": 1, "process": 0, "index": 1},
 {"type": "invoke", "f": "cas", "value": [1, 2], "process": 1, "index": 2},
 {"type": "ok", "f": "cas", "value": [1, 2], "process": 1, "index": 3}]
`)
	// What isocheck run --workload lwt records: a compare-and-set is a
	// read then a write of one key, a compare that failed a read alone.
	recorded := writeTemp(t, "run.jsonl", `{"session":2,"id":"2/0","ops":[["r",1,null],["w",1,31]],"start":128585,"end":479971}
{"session":2,"id":"2/1","ops":[["r",1,31],["w",1,32]],"start":508741,"end":635713}
{"session":0,"id":"0/0","ops":[["r",1,32]],"start":867611,"end":941576}
{"session":1,"id":"1/0","status":"unknown","ops":[["r",1,32],["w",1,33]],"start":946775}
`)
	staleRecorded := writeTemp(t, "stale.jsonl", `{"session":2,"id":"2/0","ops":[["r",1,null],["w",1,31]],"start":1,"end":2}
{"session":0,"id":"0/0","ops":[["r",1,null]],"start":3,"end":4}
`)
	mixed := writeTemp(t, "mixed.edn", `{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0}
{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}
{:type :invoke, :f :write, :value 1, :process 1}
{:type :ok, :f :write, :value 1, :process 1}
`)
	tests := []struct {
		args []string
		code int
		want []string // in stdout and stderr
	}{
		{[]string{"lwt", empty}, exitBadInput, []string{"no operations: the history is empty (if that is what you meant to check, pass --allow-empty)"}},
		{[]string{"lwt", "--allow-empty", empty}, exitSatisfied, []string{"0 operations (an empty history)", "linearizability: linearizable"}},
		{[]string{"lwt", nemesis}, exitBadInput, []string{"the history holds only 1 events of processes that are not clients"}},
		{[]string{"lwt", failed}, exitSatisfied, []string{"linearizable", "note: 1 failed operations (:fail) left out"}},
		{[]string{"lwt", "--fail-means", "absent", failed}, exitSatisfied, []string{"linearizable"}},
		{[]string{"lwt", "--fail-means", "compared", failed}, exitViolated, []string{"not linearizable", "cas(1,2) fail"}},
		{[]string{"lwt", "--fail-means", "ignored", failed}, exitBadInput, []string{"--fail-means"}},
		{[]string{"lwt", elleJSON}, exitSatisfied, []string{"linearizable"}},
		{[]string{"lwt", "--format", "elle-json", elleJSON}, exitSatisfied, []string{"linearizable"}},
		{[]string{"lwt", "--format", "edn", elleJSON}, exitBadInput, []string{"cas.json:1:"}},
		{[]string{"lwt", "--format", "text", elleJSON}, exitBadInput, []string{"--format must be auto, edn, elle-json or jsonl"}},
		{[]string{"lwt", recorded}, exitSatisfied, []string{"linearizable"}},
		{[]string{"lwt", "--format", "jsonl", staleRecorded}, exitViolated, []string{"not linearizable", `read nil on "1" ok by process 0 at [3,4] (line 2)`}},
		{[]string{"lwt", mixed}, exitSatisfied, []string{"note: 1 operations other than :read, :write and :cas (:txn 1) not checked; check transactions with isocheck check"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// TestLWTTimeoutOnAFIFOWithoutWriter: opening a FIFO waits for a writer,
// and lwt's timeout still holds, as check's does.
func TestLWTTimeoutOnAFIFOWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "history.edn")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan struct{})
	var code int
	var out, errs string
	go func() {
		defer close(done)
		code, out, errs = runCmd("lwt", "--timeout", "100ms", fifo)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("lwt --timeout 100ms still runs after a minute")
	}
	if code != exitNoVerdict || !strings.Contains(out, "timed out") {
		t.Errorf("exit %d, want 3 (timed out)\n%s%s", code, out, errs)
	}
}

// Histories of completions alone, events without :process and client
// operations other than transactions are checked, and what was inferred
// or left out is said.
func TestCheckInferredHistories(t *testing.T) {
	// Read as completion times, real time would put the read of x=1
	// before the write of 1: SSER holds only because no real-time order
	// is invented.
	completions := writeTemp(t, "completions.edn", `{:type :ok, :value [[:r :x 1]], :process 0, :index 0}
{:type :ok, :value [[:w :x 1]], :process 1, :index 1}
`)
	noProcess := writeTemp(t, "noprocess.edn", `{:index 0 :type :invoke :value [[:append 1 1]]}
{:index 1 :type :ok :value [[:append 1 1]]}
{:index 2 :type :invoke :value [[:r 1 nil]]}
{:index 3 :type :ok :value [[:r 1 []]]}
`)
	mixed := writeTemp(t, "mixed.edn", `{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}
{:type :invoke, :f :cas, :value [1 2], :process 1, :time 2}
{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 3}
{:type :fail, :f :cas, :value [1 2], :process 1, :time 4}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0, :time 5}
{:type :ok, :f :txn, :value [[:r :x nil]], :process 0, :time 6}
{:type :invoke, :f :read, :value nil, :process 1, :time 7}
{:type :ok, :f :read, :value 1, :process 1, :time 8}
`)
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"check", "--level", "sser", completions}, exitSatisfied, []string{"SSER: satisfied", "note: no :invoke events: real-time order unknown, SSER checked as SER"}},
		{[]string{"stats", completions}, exitSatisfied, []string{"note:         no :invoke events: real-time order unknown, SSER checked as SER"}},
		{[]string{"check", "--level", "sser", noProcess}, exitViolated, []string{"SSER: VIOLATED", "note: 4 events without :process: no session order"}},
		{[]string{"check", "--level", "ser", noProcess}, exitSatisfied, []string{"SER: satisfied"}},
		{[]string{"stats", noProcess}, exitSatisfied, []string{"sessions:     2", "note:         4 events without :process"}},
		{[]string{"check", "--level", "ser", mixed}, exitViolated, []string{"SER: VIOLATED", "note: 2 non-transactional operations (:cas 1, :read 1) not checked; check registers with isocheck lwt"}},
		{[]string{"stats", mixed}, exitSatisfied, []string{"transactions: 2", "note:         2 non-transactional operations"}},
		{[]string{"check", "--json", completions}, exitSatisfied, []string{`"input_notes": [`, `"no :invoke events: real-time order unknown, SSER checked as SER"`}},
		{[]string{"check", "--level", "all", mixed}, exitViolated, []string{"SI    violated", "note: 2 non-transactional operations (:cas 1, :read 1) not checked"}},
		{[]string{"check", "--level", "all", "--json", completions}, exitSatisfied, []string{`"input_notes": [`, `"no :invoke events: real-time order unknown, SSER checked as SER"`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// TestLWTJSON checks lwt --json: one JSON object on stdout that starts as
// every report's (level, satisfied, verdict) and gives the operation
// that cannot be placed with its times and line, the related ones, the
// counts and the notes; the exit status is the verdict's. With --html -
// the page has stdout to itself and the JSON goes to stderr.
func TestLWTJSON(t *testing.T) {
	stale := writeTemp(t, "stale.edn", `{:type :invoke, :f :write, :value 1, :time 0, :process 0}
{:type :ok, :f :write, :value 1, :time 1, :process 0}
{:type :invoke, :f :read, :value nil, :time 2, :process 1}
{:type :ok, :f :read, :value nil, :time 3, :process 1}
`)
	failed := writeTemp(t, "failed.edn", failedCAS)
	type op struct {
		Index   int    `json:"index"`
		Process *int   `json:"process"`
		Kind    string `json:"kind"`
		Outcome string `json:"outcome"`
		Value   any    `json:"value"`
		Call    *int64 `json:"call"`
		Return  *int64 `json:"return"`
		Line    int    `json:"line"`
		RetLine int    `json:"return_line"`
	}
	type report struct {
		Level     string `json:"level"`
		Satisfied *bool  `json:"satisfied"`
		Verdict   string `json:"verdict"`
		Reason    string `json:"reason"`
		Anomaly   *struct {
			Reason    string `json:"reason"`
			Operation op     `json:"operation"`
			Related   []op   `json:"related"`
			Searched  bool   `json:"searched"`
		} `json:"anomaly"`
		Notes      []string `json:"notes"`
		Registers  int      `json:"registers"`
		Operations int      `json:"operations"`
		Searched   int      `json:"searched"`
	}
	decode := func(t *testing.T, s string) report {
		t.Helper()
		var r report
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("not one report: %v\n%s", err, s)
		}
		if r.Level != "linearizability" {
			t.Errorf("level %q, want linearizability", r.Level)
		}
		return r
	}

	code, out, errs := runCmd("lwt", "--json", stale)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
	}
	r := decode(t, out)
	if r.Satisfied == nil || *r.Satisfied || r.Verdict != "violated" || r.Anomaly == nil {
		t.Fatalf("a stale read reported as %+v", r)
	}
	o := r.Anomaly.Operation
	if o.Kind != "read" || o.Outcome != "ok" || o.Value != nil || o.Call == nil || *o.Call != 2 || o.Return == nil || *o.Return != 3 || o.Line != 3 || o.RetLine != 4 || o.Process == nil || *o.Process != 1 {
		t.Errorf("operation %+v, want the read of nil by process 1 at [2,3], line 3", o)
	}
	if len(r.Anomaly.Related) != 1 || r.Anomaly.Related[0].Kind != "write" || r.Anomaly.Related[0].Value != float64(1) {
		t.Errorf("related %+v, want the write of 1", r.Anomaly.Related)
	}
	if !strings.Contains(r.Anomaly.Reason, "read nil") || r.Registers != 1 || r.Operations != 2 {
		t.Errorf("reason %q, %d registers, %d operations", r.Anomaly.Reason, r.Registers, r.Operations)
	}

	code, out, errs = runCmd("lwt", "--json", failed)
	if code != exitSatisfied {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitSatisfied, out, errs)
	}
	r = decode(t, out)
	if r.Satisfied == nil || !*r.Satisfied || r.Anomaly != nil || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1 failed operations (:fail) left out") {
		t.Errorf("a linearizable history with a failed cas reported as %+v", r)
	}

	code, out, errs = runCmd("lwt", "--json", "--html", "-", stale)
	if code != exitViolated || !strings.HasPrefix(out, "<!DOCTYPE html>") || strings.Contains(out, `"verdict"`) {
		t.Fatalf("exit %d; stdout does not hold the page alone:\n%.200s", code, out)
	}
	decode(t, errs)
}
