package online_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/sim"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/run"
	"github.com/isocheck/isocheck/verdict"
	"github.com/isocheck/isocheck/workload"
)

// fencedRun runs a small random workload with fences on a simulated
// store, dsn, and returns the history it recorded.
func fencedRun(t *testing.T, rng *rand.Rand, dsn string, sessions, every int) []byte {
	t.Helper()
	plan, err := workload.NewPlan(workload.PlanConfig{
		Sessions: sessions, TxnsPerSession: 3 + rng.IntN(25), OpsPerTxn: 1 + rng.IntN(5),
		Keys: 2 + rng.IntN(12), ReadProportion: 0.5, Seed: rng.Int64(),
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Open(context.Background(), db.Config{DSN: dsn, Keys: plan.Keys + run.FenceKeys(sessions)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := run.Run(context.Background(), d, plan, run.Options{Recorder: jsonl.NewRecorder(&buf), Fences: every}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wholeVerdict is the offline check's verdict on input at l.
func wholeVerdict(t *testing.T, input []byte, l level.Level) verdict.Verdict {
	t.Helper()
	h, err := jsonl.Read(progress.Start(context.Background(), "parse", 0, ""), bufio.NewReader(bytes.NewReader(input)), "whole", int64(len(input)), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Check(context.Background(), h, l)
	if err != nil {
		t.Fatal(err)
	}
	return res.Verdict
}

// TestPiecesDecideAsTheWhole runs thousands of random workloads with
// fences on simulated stores, faulty ones among them, and checks them a
// piece at a time: a piece found to break the level is a violation of the
// whole, and the verdict of the pieces (Finish), when they give one, is
// the offline check's of the whole history, itself checked against a
// brute-force checker in package check's tests.
func TestPiecesDecideAsTheWhole(t *testing.T) {
	dsns := []string{"sim://ser", "sim://si", "sim://rc", "sim://si?fault=lost-update&p=0.3",
		"sim://ser?fault=stale-read&p=0.2", "sim://si?fault=fractured-read&p=0.2", "sim://rc?fault=dirty-read&p=0.2"}
	levels := []level.Level{level.SSER, level.SER, level.SI, level.PC, level.CC, level.RA, level.RC}
	n := testsize.N(400, 3000)
	rng := rand.New(rand.NewPCG(7, 9))
	decided := map[verdict.Verdict]int{}
	early, pieces := 0, 0
	undecided := map[string]int{}
	for i := range n {
		dsn := dsns[rng.IntN(len(dsns))]
		l := levels[rng.IntN(len(levels))]
		input := fencedRun(t, rng, dsn, 1+rng.IntN(4), 1+rng.IntN(6))
		want := wholeVerdict(t, input, l)
		c, err := online.New(online.Options{Level: l, Format: format.JSONL, Name: "h", Window: 8 + rng.IntN(64), Source: bytes.NewReader(input)})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("case %d (%s at %s)", i, dsn, l)
		if v := feed(t, c, rng, input, 400); v != nil {
			early++
			if want != verdict.Violated {
				t.Fatalf("%s: lines %d-%d reported violated, but the whole history is %s", name, v.FromLine+1, v.Lines, want)
			}
			continue
		}
		fin, err := c.Finish(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if fin == nil {
			why := c.Stats().NotApart
			why = strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return '#'
				}
				return r
			}, why)
			undecided[why]++
			continue
		}
		if got := fin.Result.Verdict; got != want {
			t.Fatalf("%s: the pieces say %s, the whole history %s (%d pieces)\n%s", name, got, want, fin.Pieces, input)
		}
		decided[want]++
		pieces += fin.Pieces
	}
	t.Logf("%d histories: %d violations found early; the pieces decided %d satisfied and %d violated (%d pieces); left to the whole: %v", n, early, decided[verdict.Satisfied], decided[verdict.Violated], pieces, undecided)
	if decided[verdict.Satisfied] < n/10 || early < n/20 {
		t.Fatalf("too few cases decided by the pieces: %v, %d early", decided, early)
	}
}

// TestPiecesForgetTheHistory checks that a Checker of a long history with
// fences holds a bounded part of it: the pieces are read from the Source,
// and what it keeps stays within about two windows.
func TestPiecesForgetTheHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	plan, err := workload.NewPlan(workload.PlanConfig{Sessions: 8, TxnsPerSession: 2000, OpsPerTxn: 4, Keys: 500, ReadProportion: 0.5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Open(context.Background(), db.Config{DSN: "sim://ser", Keys: plan.Keys + run.FenceKeys(8)})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := run.Run(context.Background(), d, plan, run.Options{Recorder: jsonl.NewRecorder(&buf), Fences: 100}); err != nil {
		t.Fatal(err)
	}
	input := buf.Bytes()
	c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h", Window: 512, Source: bytes.NewReader(input)})
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for rest := input; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(20000))
		c.Write(rest[:n])
		rest = rest[n:]
		if v, err := c.Check(context.Background()); v != nil || err != nil {
			t.Fatalf("%v, %v", v, err)
		}
		most = max(most, c.Stats().Kept)
	}
	fin, err := c.Finish(context.Background())
	if err != nil || fin == nil {
		t.Fatalf("no verdict from the pieces: %v (%+v)", err, c.Stats())
	}
	if fin.Result.Verdict != verdict.Satisfied || fin.Pieces < 20 {
		t.Fatalf("%s in %d pieces", fin.Result.Verdict, fin.Pieces)
	}
	if most > len(input)/10 {
		t.Fatalf("the Checker held up to %d bytes of a %d-byte input", most, len(input))
	}
	if s := c.Stats(); s.Prefixes > 1 {
		t.Fatalf("%d checks of everything so far beside the pieces", s.Prefixes)
	}
}

// TestPiecesNotApart checks that a piece that does not stand for what
// came before (here a session whose first transaction after a fence does
// not read the fence) stops the checks apart, says why, and leaves the
// verdict to the check of the whole.
func TestPiecesNotApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	input := fencedRun(t, rng, "sim://ser", 3, 3)
	lines := strings.SplitAfter(string(input), "\n")
	// Drop the second fence's read of one session: the first line whose
	// id ends in /out2.
	var cut []string
	dropped := false
	for _, ln := range lines {
		if !dropped && strings.Contains(ln, `/out2"`) {
			dropped = true
			continue
		}
		cut = append(cut, ln)
	}
	if !dropped {
		t.Fatal("no second fence")
	}
	in := []byte(strings.Join(cut, ""))
	c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h", Source: bytes.NewReader(in)})
	if err != nil {
		t.Fatal(err)
	}
	c.Write(in)
	if v, err := c.Check(context.Background()); v != nil || err != nil {
		t.Fatalf("%v, %v", v, err)
	}
	fin, err := c.Finish(context.Background())
	if err != nil || fin != nil {
		t.Fatalf("the pieces gave a verdict: %v, %v", fin, err)
	}
	if s := c.Stats(); !strings.Contains(s.NotApart, "does not read what the fence wrote") || s.Pieces == 0 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestWatchPiecesAfterRepeats: values that repeat stop the early checks
// of windows, not those of pieces between fences: Watch goes on, and
// reports the lost update of the second piece.
func TestWatchPiecesAfterRepeats(t *testing.T) {
	lines := []string{
		`{"session":0,"ops":[["w","x",1]]}`,
		`{"session":1,"ops":[["w","x",1]]}`, // the same value again
		`{"session":0,"ops":[["w","f0",10]]}`,
		`{"session":1,"ops":[["w","f1",10]]}`,
		`{"session":"fence","ops":[["r","x",1],["r","f0",10],["r","f1",10],["w","F",10]]}`,
		`{"session":0,"ops":[["r","F",10]]}`,
		`{"session":1,"ops":[["r","F",10]]}`,
		`{"session":0,"ops":[["r","x",1],["w","x",5]]}`,
		`{"session":1,"ops":[["r","x",1],["w","x",6]]}`, // a lost update
		`{"session":0,"ops":[["w","f0",20]]}`,
		`{"session":1,"ops":[["w","f1",20]]}`,
		`{"session":"fence","ops":[["r","x",6],["r","f0",20],["r","f1",20],["w","F",20]]}`,
	}
	src := &growing{}
	c, err := online.New(online.Options{Level: level.SI, Format: format.JSONL, Name: "h.jsonl", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for _, l := range lines {
			src.Write([]byte(l + "\n"))
			c.Write([]byte(l + "\n"))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := c.Watch(ctx, time.Millisecond, nil)
	if err != nil || v == nil {
		t.Fatalf("Watch: %+v, %v; want the lost update", v, err)
	}
	if s := c.Stats(); !s.Repeated || s.Pieces != 1 || v.Lines != len(lines) {
		t.Fatalf("found in lines %d-%d; stats %+v", v.FromLine+1, v.Lines, s)
	}
}

// TestFinishLastLine: an input whose last line has no newline is decided
// with that line; one whose last line is cut short is left to the check
// of the whole, which reports it.
func TestFinishLastLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	input := fencedRun(t, rng, "sim://ser", 2, 3)
	for _, tc := range []struct {
		name    string
		in      []byte
		decided bool
	}{
		{"no newline", bytes.TrimSuffix(input, []byte("\n")), true},
		{"cut short", input[:len(input)-5], false},
	} {
		c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h", Source: bytes.NewReader(tc.in)})
		if err != nil {
			t.Fatal(err)
		}
		c.Write(tc.in)
		fin, err := c.Finish(context.Background())
		if err != nil || (fin != nil) != tc.decided {
			t.Fatalf("%s: %+v, %v; want decided %v (%+v)", tc.name, fin, err, tc.decided, c.Stats())
		}
		if fin != nil && (fin.Result.Verdict != verdict.Satisfied || fin.Lines != bytes.Count(input, []byte("\n"))) {
			t.Fatalf("%s: %s over %d lines", tc.name, fin.Result.Verdict, fin.Lines)
		}
	}
}
