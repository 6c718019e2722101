package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
)

// TestFollowAgreesWithCheck: on Jepsen's list-append histories of the
// corpus and on generated ones (faults, aborted and unknown transactions,
// JSONL and EDN), check --follow ends with the output and exit status of
// check on the same file, whatever it reported early.
func TestFollowAgreesWithCheck(t *testing.T) {
	dir := t.TempDir()
	var files []string
	edn, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "elle-list-append", "*.edn"))
	files = append(files, edn...)
	for seed := range testsize.N(40, 400) {
		rng := rand.New(rand.NewPCG(uint64(seed), 3939))
		h := histgen.Small(rng, histgen.SmallConfig{Sessions: 4, MaxTxns: 20, Keys: 4, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.2, Times: seed%2 == 0})
		f, ext := format.JSONL, ".jsonl"
		if seed%3 == 0 {
			f, ext = format.EDN, ".edn"
		}
		path := filepath.Join(dir, fmt.Sprintf("h%d%s", seed, ext))
		writeFollowed(t, path, h, f)
		files = append(files, path)
	}
	levels := level.All()
	for i, path := range files {
		l := levels[i%len(levels)].String()
		code, out, errs := runCmd("check", "--level", l, path)
		fcode, fout, ferrs := runCmd("check", "--follow", "--idle", "1ms", "--level", l, path)
		if fcode != code || !strings.HasSuffix(fout, out) {
			t.Fatalf("%s at %s: check --follow exit %d, check exit %d\n--- follow:\n%s%s\n--- check:\n%s%s", path, l, fcode, code, fout, ferrs, out, errs)
		}
		if fout != out && code != exitViolated {
			t.Fatalf("%s at %s: an early violation, but check says exit %d:\n%s", path, l, code, fout)
		}
	}
}

// writeFollowed writes h to path in format f.
func writeFollowed(t *testing.T, path string, h *history.History, f format.Format) {
	t.Helper()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// lostUpdateStream is a serializable history of 4,000 transactions with a
// lost update at lines 2001-2002.
func lostUpdateStream(t *testing.T) [][]byte {
	t.Helper()
	h := histgen.Large(histgen.LargeConfig{Sessions: 8, TxnsPerSession: 500, OpsPerTxn: 6, Keys: 1000, ReadProportion: 0.5, Seed: 3, Store: histgen.Serializable})
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	lines = lines[:len(lines)-1]
	lost := [][]byte{
		[]byte(`{"session": "lu1", "ops": [["r", "lost", null], ["w", "lost", 1]]}` + "\n"),
		[]byte(`{"session": "lu2", "ops": [["r", "lost", null], ["w", "lost", 2]]}` + "\n"),
	}
	return append(lines[:2000:2000], append(lost, lines[2000:]...)...)
}

// earlyLines matches the head of an early report, and gives the last line
// of the part that violates.
var earlyLines = regexp.MustCompile(`(?m)^(?:The first (\d+) lines|Lines \d+-(\d+)) of .* already violate SER:$`)

// TestFollowReportsEarly: a lost update written to a FIFO is reported
// while the writer waits, before the rest is written; the verdict at the
// end is check's on the whole.
func TestFollowReportsEarly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stream")
	mkfifo(t, fifo)
	lines := lostUpdateStream(t)
	whole := filepath.Join(dir, "whole.jsonl")
	if err := os.WriteFile(whole, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	const pause = 2100 // lines written before the writer waits
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(bytes.Join(lines[:pause], nil))
		time.Sleep(time.Second) // time for ten checks
		f.Write(bytes.Join(lines[pause:], nil))
	}()
	code, out, errs := runCmdWithin(t, "check", "--follow", "--level", "ser", fifo)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
	}
	m := earlyLines.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no early report:\n%s", out)
	}
	last, _ := strconv.Atoi(m[1] + m[2])
	if last > pause {
		t.Errorf("the violation was reported after line %d, though the writer waited at line %d", last, pause)
	}
	if !strings.Contains(out, "LostUpdate") || !strings.Contains(out, "Counterexample: 2 of") {
		t.Errorf("the early report is not the minimal lost update:\n%s", out)
	}
	_, offline, _ := runCmd("check", "--level", "ser", whole)
	offline = strings.ReplaceAll(offline, whole, fifo)
	if !strings.HasSuffix(out, offline) {
		t.Errorf("the final verdict is not check's:\n--- follow:\n%s\n--- check:\n%s", out, offline)
	}
}

// TestFollowStopsOnViolation: with --stop-on-violation the input ends at
// the first violation, and the exit status says violated.
func TestFollowStopsOnViolation(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stream")
	mkfifo(t, fifo)
	lines := lostUpdateStream(t)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(bytes.Join(lines[:2100], nil))
		time.Sleep(time.Second)
		for _, l := range lines[2100:] { // until the reader goes away
			if _, err := f.Write(l); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, out, errs := runCmdWithin(t, "check", "--follow", "--stop-on-violation", "--level", "ser", fifo)
	if code != exitViolated || !strings.Contains(out, "--stop-on-violation") {
		t.Fatalf("exit %d, want %d, with the early report\n%s%s", code, exitViolated, out, errs)
	}
	m := regexp.MustCompile(`of the history's (\d+) transactions`).FindAllStringSubmatch(out, -1)
	if m == nil {
		t.Fatalf("no count of transactions:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[len(m)-1][1]); n >= len(lines) {
		t.Errorf("the final check read %d transactions: the input did not end at the violation", n)
	}
}

// TestFollowLimitsHold: a FIFO that stalls ends at --timeout, with no
// verdict, or with the violation reported before it.
func TestFollowLimitsHold(t *testing.T) {
	lines := lostUpdateStream(t)
	for _, tc := range []struct {
		name  string
		write int // lines written before the stall
		code  int
		says  string
	}{
		{"nothing", 0, exitNoVerdict, "timed out"},
		{"satisfied so far", 1000, exitNoVerdict, "timed out"},
		{"violated so far", 2100, exitViolated, "the violation above stands"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "stream")
			mkfifo(t, fifo)
			release := make(chan struct{})
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				f.Write(bytes.Join(lines[:tc.write], nil))
				<-release
			}()
			defer close(release)
			start := time.Now()
			code, out, errs := runCmdWithin(t, "check", "--follow", "--timeout", "1s", "--level", "ser", fifo)
			if code != tc.code || !strings.Contains(out+errs, tc.says) {
				t.Fatalf("exit %d, want %d saying %q\n%s%s", code, tc.code, tc.says, out, errs)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %v with --timeout 1s", d)
			}
		})
	}
}

// TestFollowBadInput: a truncated last line, or a transaction completed
// twice, gets check's error and exit status.
func TestFollowBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"truncated.jsonl": "{\"session\": 1, \"ops\": [[\"w\", \"x\", 1]]}\n{\"session\": 2, \"ops\": [[\"r\", \"x\"",
		"twice.edn":       "{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :index 0}\n{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 1}\n{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :index 2}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCmd("check", "--level", "ser", path)
		fcode, _, ferrs := runCmd("check", "--follow", "--idle", "1ms", "--level", "ser", path)
		if code != exitBadInput || fcode != code || !strings.HasSuffix(ferrs, errs) {
			t.Errorf("%s: check --follow exit %d, %q; check exit %d, %q", name, fcode, ferrs, code, errs)
		}
	}
}

// TestFollowFlags: --follow checks one level.
func TestFollowFlags(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--follow", "--level", "all", "../../examples/write-skew.jsonl"},
		{"check", "--follow", "--idle", "0s", "../../examples/write-skew.jsonl"},
		{"check", "--stop-on-violation", "../../examples/write-skew.jsonl"},
	} {
		if code, _, errs := runCmd(args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitBadInput, errs)
		}
	}
}

// TestRunStopsOnViolation: run --check si --stop-on-violation on a store
// that loses updates ends the run at the first violation found while it
// runs, and explains it from the history recorded so far.
func TestRunStopsOnViolation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, stderr := runCmd("run", "--db", "sim://si?fault=lost-update", "--sessions", "8", "--txns", "20000", "--check", "si", "--stop-on-violation", "-o", out)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, stdout, stderr)
	}
	for _, want := range []string{"stopping the run (--stop-on-violation)", "stopped at the first violation"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n >= 8*20000 {
		t.Errorf("the run recorded all %d transactions: it did not stop", n)
	}
	if !strings.Contains(stdout, "VIOLATED: LostUpdate") {
		t.Errorf("no explained lost update:\n%s", stdout)
	}
}

// TestFollowReportsLongRangeEarly: a lost update whose two transactions
// lie 70,000 lines apart, further than any window and past the lines the
// checker keeps (65,536), written to a FIFO 5,000 lines at a time, which
// pauses after 150,000 lines: a check of everything so far past 70,000
// lines reads the input back from isocheck's copy of it and reports the
// lost update while the writer waits (the run stops there, with
// --stop-on-violation).
func TestFollowReportsLongRangeEarly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stream")
	mkfifo(t, fifo)
	var lines [][]byte
	lines = append(lines, []byte(`{"session": "a", "ops": [["w", "x", 1]]}`+"\n"),
		[]byte(`{"session": "b", "ops": [["r", "x", 1], ["w", "x", 2]]}`+"\n"))
	for i := range 160_000 {
		if i == 70_000 {
			lines = append(lines, []byte(`{"session": "c", "ops": [["r", "x", 1], ["w", "x", 3]]}`+"\n"))
		}
		lines = append(lines, fmt.Appendf(nil, `{"session": %d, "ops": [["w", %d, 1]]}`+"\n", i%8, i))
	}
	// Each check of everything so far begins once the input has doubled
	// since the last: the one before line 70,003 began before it, the
	// next by line 140,006, before the writer waits.
	const pause = 150_000
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		// In steps, so that each window takes only what came since the
		// last: none reaches from one transaction of the lost update to
		// the other.
		for at := 0; at < pause; at += 5000 {
			f.Write(bytes.Join(lines[at:min(at+5000, pause)], nil))
			time.Sleep(40 * time.Millisecond)
		}
		// The writer waits for the check, however long a loaded
		// machine takes (--stop-on-violation closes the FIFO once it
		// reports), and only then writes the rest: a report before
		// that is the check's of the first lines, read back.
		time.Sleep(90 * time.Second)
		f.Write(bytes.Join(lines[pause:], nil))
	}()
	code, out, errs := runCmdWithin(t, "check", "--follow", "--stop-on-violation", "--level", "si", fifo)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, out, errs)
	}
	m := regexp.MustCompile(`(?m)^The first (\d+) lines of .* already violate SI:$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no early report of the first lines:\n%.2000s\nstderr: %s", out, errs)
	}
	if last, _ := strconv.Atoi(m[1]); last > pause || last < 70_003 {
		t.Errorf("the violation was reported after line %d; the writer waited at line %d", last, pause)
	}
	if !strings.Contains(out, "LostUpdate") || !strings.Contains(out, "Counterexample: 3 of") && !strings.Contains(out, "Counterexample: 2 of") {
		t.Errorf("the early report is not the lost update:\n%.3000s", out)
	}
}
