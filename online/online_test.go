package online_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/verdict"
)

// feed writes input to c in chunks of random sizes, calling Check after
// each until a violation is found, and returns the first violation.
func feed(t *testing.T, c *online.Checker, rng *rand.Rand, input []byte, chunk int) *online.Violation {
	t.Helper()
	var first *online.Violation
	for len(input) > 0 {
		n := min(len(input), 1+rng.IntN(chunk))
		c.Write(input[:n])
		input = input[n:]
		if first != nil {
			continue
		}
		v, err := c.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		first = v
	}
	if v := c.Wait(); first == nil {
		first = v
	}
	return first
}

func write(t *testing.T, h *history.History, f format.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEarlyViolationsAreReal feeds thousands of small generated histories
// (faults, aborted and unknown transactions, real time, lists), in random
// chunks and with tiny windows, and checks every early violation against
// the brute-force reference: the part reported breaks the level, and so
// does the whole history.
func TestEarlyViolationsAreReal(t *testing.T) {
	n := testsize.N(300, 3000)
	levels := level.All()
	found := map[level.Level]int{}
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 39))
		h := histgen.Small(rng, histgen.SmallConfig{
			Sessions: 3, MaxTxns: 8, Keys: 3, MaxOps: 4,
			AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.4,
			Times: seed%2 == 0, Lists: seed%5 == 0,
		})
		f := format.JSONL
		if seed%3 == 0 && !h.Lists {
			f = format.EDN
		}
		input := write(t, h, f)
		whole, err := format.Read(bytes.NewReader(input), "h", f)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		l := levels[seed%len(levels)]
		c, err := online.New(online.Options{Level: l, Format: f, Name: "h", Window: 2 + rng.IntN(6)})
		if err != nil {
			t.Fatal(err)
		}
		v := feed(t, c, rng, input, 200)
		if v == nil {
			continue
		}
		found[l]++
		if ok, err := reference.Check(v.History, l); err != nil || ok {
			t.Fatalf("seed %d, %v: the part reported (lines %d-%d) satisfies the level by the reference (err %v):\n%s", seed, l, v.FromLine+1, v.Lines, err, histgen.Describe(v.History))
		}
		if ok, err := reference.Check(whole, l); err != nil || ok {
			t.Fatalf("seed %d, %v: an early violation, but the whole history satisfies the level by the reference (err %v):\n%s", seed, l, err, histgen.Describe(whole))
		}
	}
	for _, l := range levels {
		if found[l] == 0 && n >= 300 {
			t.Errorf("no early violation of %v in %d histories: the test shows nothing", l, n)
		}
	}
}

// TestLostUpdateMidStream switches a lost update on in the middle of a
// long serializable stream: it is found from a window, long before the
// end, and the offline check of the whole agrees.
func TestLostUpdateMidStream(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 10, TxnsPerSession: 1000, OpsPerTxn: 6, Keys: 2000, ReadProportion: 0.5, Seed: 7, Store: histgen.Serializable})
	input := write(t, h, format.JSONL)
	lines := bytes.Split(bytes.TrimSuffix(input, []byte("\n")), []byte("\n"))
	// Two transactions read key 0's initial value and both write it, at
	// line 6000: a lost update.
	mid := 6000
	lost := []string{
		`{"session": "lu1", "ops": [["r", "lost", null], ["w", "lost", 1]]}`,
		`{"session": "lu2", "ops": [["r", "lost", null], ["w", "lost", 2]]}`,
	}
	var buf bytes.Buffer
	for i, line := range lines {
		if i == mid {
			for _, l := range lost {
				buf.WriteString(l + "\n")
			}
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	input = buf.Bytes()
	for _, l := range []level.Level{level.SER, level.SI} {
		c, err := online.New(online.Options{Level: l, Format: format.JSONL, Name: "stream", NoPrefix: true})
		if err != nil {
			t.Fatal(err)
		}
		v := feed(t, c, rand.New(rand.NewPCG(1, 2)), input, 1<<16)
		if v == nil {
			t.Fatalf("%v: the lost update at line %d was not found before the end", l, mid+1)
		}
		if v.Lines > mid+2+online.DefaultWindow/2 {
			t.Errorf("%v: found only after %d lines; the lost update completed at line %d", l, v.Lines, mid+2)
		}
		rep, err := interpret.Minimal(context.Background(), v.Result)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Anomaly == nil || rep.Anomaly.Name != verdict.LostUpdate || !rep.Anomaly.Minimal || len(rep.Anomaly.Txns) != 2 {
			t.Errorf("%v: the early report is not the minimal lost update: %+v", l, rep.Anomaly)
		}
		whole, err := format.Read(bytes.NewReader(input), "stream", format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		res, err := check.Check(context.Background(), whole, l)
		if err != nil || res.Verdict != verdict.Violated {
			t.Fatalf("%v: offline: %v, %v; want violated", l, res, err)
		}
	}
}

// TestRepeatedValuesWaitForTheEnd: once a value is written twice to a
// key, a read's writer may be one still to come, and nothing is reported
// early.
func TestRepeatedValuesWaitForTheEnd(t *testing.T) {
	input := []byte(`{"session": 1, "ops": [["w", "x", 1]]}
{"session": 2, "ops": [["w", "x", 1]]}
{"session": 3, "ops": [["r", "x", 1], ["r", "y", 5]]}
{"session": 4, "ops": [["r", "y", 5], ["r", "x", 1]]}
`)
	c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if v := feed(t, c, rand.New(rand.NewPCG(1, 1)), input, 20); v != nil {
		t.Fatalf("an early violation of a history whose values repeat: %+v", v.Result)
	}
	if !c.Stats().Repeated {
		t.Error("Stats.Repeated not set")
	}
}

// TestUnreadablePartWaitsForTheEnd: a bad line stops the early checks,
// and Stats says why (the check of the whole input at its end reports
// it).
func TestUnreadablePartWaitsForTheEnd(t *testing.T) {
	input := []byte("{\"session\": 1, \"ops\": [[\"w\", \"x\", 1]]}\n{\"session\": 2, \"ops\": [[\"r\", \"x\"\n{\"session\": 3, \"ops\": [[\"r\", \"x\", 1]]}\n")
	c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if v := feed(t, c, rand.New(rand.NewPCG(1, 1)), input, 20); v != nil {
		t.Fatal("an early violation of an unreadable input")
	}
	if err := c.Stats().Unreadable; err == nil || !strings.Contains(err.Error(), "h:2") {
		t.Fatalf("Stats.Unreadable = %v, want the error at h:2", err)
	}
}

// TestMemoryStaysWithinWindows: past MaxPrefix lines, the Checker holds
// about two windows of the input, however long it grows, and still finds
// a violation at its end.
func TestMemoryStaysWithinWindows(t *testing.T) {
	h := histgen.Large(histgen.LargeConfig{Sessions: 10, TxnsPerSession: 3000, OpsPerTxn: 4, Keys: 5000, ReadProportion: 0.5, Seed: 2, Store: histgen.Serializable})
	input := write(t, h, format.JSONL)
	input = append(input, `{"session": "lu1", "ops": [["r", "lost", null], ["w", "lost", 1]]}
{"session": "lu2", "ops": [["r", "lost", null], ["w", "lost", 2]]}
`...)
	const window = 500
	c, err := online.New(online.Options{Level: level.SER, Format: format.JSONL, Name: "h", Window: window, MaxPrefix: 2000})
	if err != nil {
		t.Fatal(err)
	}
	lineBytes := len(input) / bytes.Count(input, []byte("\n"))
	most := 0
	var found *online.Violation
	for len(input) > 0 && found == nil {
		n := min(len(input), 300*lineBytes)
		c.Write(input[:n])
		input = input[n:]
		v, err := c.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		found = v
		if s := c.Stats(); s.Lines > 4000 {
			most = max(most, s.Kept)
		}
	}
	c.Wait()
	if found == nil || found.FromLine == 0 {
		t.Fatalf("the lost update at the end was not found by a window: %+v", found)
	}
	if limit := 5 * window * lineBytes; most > limit {
		t.Errorf("the Checker held %d bytes past the first 4,000 lines, more than about two windows (%d)", most, limit)
	}
}

// TestOnlyLineFormats: formats whose transactions span lines are refused.
func TestOnlyLineFormats(t *testing.T) {
	for _, f := range []format.Format{format.Text, format.DBCop, format.ElleJSON, format.Cobra, format.Auto} {
		if _, err := online.New(online.Options{Level: level.SER, Format: f, Name: "h"}); err == nil {
			t.Errorf("%s: accepted", f)
		}
	}
}

// TestWatch checks the loop of a caller that writes the input on one
// goroutine and watches it on another: Watch returns the lost update once
// its second transaction is written, reporting the lines seen on the
// way; it returns nothing once values repeat (no early verdict is
// possible then); and it returns ctx's error when ctx ends first.
func TestWatch(t *testing.T) {
	lines := []string{
		`{"session": 1, "ops": [["w", "x", 1]]}`,
		`{"session": 2, "ops": [["r", "x", 1], ["w", "x", 2]]}`,
		`{"session": 3, "ops": [["r", "x", 1], ["w", "x", 3]]}`,
	}
	watch := func(ctx context.Context, lines []string) (*online.Violation, int, error) {
		c, err := online.New(online.Options{Level: level.SI, Format: format.JSONL, Name: "h.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for _, l := range lines {
				c.Write([]byte(l + "\n"))
				time.Sleep(5 * time.Millisecond)
			}
		}()
		seen := 0
		v, err := c.Watch(ctx, time.Millisecond, func(s online.Stats) { seen = max(seen, s.Lines) })
		c.Wait()
		return v, seen, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, seen, err := watch(ctx, lines)
	if err != nil || v == nil || v.Lines != 3 || v.Result.Anomalies == nil && v.Result.Cycle == nil {
		t.Fatalf("the lost update: %+v, %v", v, err)
	}
	if seen != 3 {
		t.Errorf("the last report saw %d lines, want 3", seen)
	}

	repeated := []string{lines[0], `{"session": 2, "ops": [["w", "x", 1]]}`, lines[2]}
	if v, _, err := watch(ctx, repeated); v != nil || err != nil {
		t.Errorf("values that repeat: %+v, %v; want nothing", v, err)
	}

	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if v, _, err := watch(short, lines[:1]); v != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an input with no violation, watched until ctx ends: %+v, %v", v, err)
	}
}

// growing is an input written so far, read back at any offset: what a
// file the caller keeps is to a Checker's Source.
type growing struct {
	mu  sync.Mutex
	buf []byte
}

func (g *growing) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buf = append(g.buf, p...)
	return len(p), nil
}

func (g *growing) ReadAt(p []byte, off int64) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if off >= int64(len(g.buf)) {
		return 0, io.EOF
	}
	n := copy(p, g.buf[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestLongRangeViolationFromSource checks a lost update whose two
// transactions lie 3,000 lines apart, far more than a window (16 lines
// here) and past the lines checked whole from memory (64): without a
// Source nothing reports it before the end; with one, the check of
// everything so far at 4,096 lines reads it from there and reports it,
// with the two transactions, while the Checker keeps only its windows.
func TestLongRangeViolationFromSource(t *testing.T) {
	var in bytes.Buffer
	in.WriteString(`{"session": 1, "ops": [["w", "x", 1]]}` + "\n")
	in.WriteString(`{"session": 2, "ops": [["r", "x", 1], ["w", "x", 2]]}` + "\n")
	for i := range 3000 {
		fmt.Fprintf(&in, `{"session": %d, "ops": [["w", "k%d", 1]]}`+"\n", 4+i%5, i)
	}
	in.WriteString(`{"session": 3, "ops": [["r", "x", 1], ["w", "x", 3]]}` + "\n")
	for i := range 1200 {
		fmt.Fprintf(&in, `{"session": %d, "ops": [["w", "m%d", 1]]}`+"\n", 4+i%5, i)
	}
	lines := strings.SplitAfter(in.String(), "\n")
	lines = lines[:len(lines)-1]

	for _, withSource := range []bool{false, true} {
		src := &growing{}
		opts := online.Options{Level: level.SI, Format: format.JSONL, Name: "h.jsonl", Window: 16, MaxPrefix: 64}
		if withSource {
			opts.Source = src
		}
		c, err := online.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		var found *online.Violation
		kept := 0
		for i, l := range lines {
			src.Write([]byte(l)) // the caller's file holds it first
			c.Write([]byte(l))
			if i%8 != 7 {
				continue
			}
			v, err := c.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if v == nil {
				// The check of everything so far, if one runs: waited
				// for, so that they begin as the input doubles.
				v = c.Wait()
			}
			kept = max(kept, c.Stats().Kept)
			if v != nil {
				found = v
				break
			}
		}
		if found == nil {
			found = c.Wait()
		}
		switch {
		case !withSource && found != nil:
			t.Errorf("without a source: a violation of lines %d-%d reported early", found.FromLine+1, found.Lines)
		case withSource && (found == nil || found.FromLine != 0 || found.Lines < 3003 || found.Lines == len(lines)):
			t.Fatalf("with a source: %+v, want the lost update found from line 1 before the end (%+v)", found, c.Stats())
		case withSource:
			if a := found.Result.Anomalies; len(a) == 0 || a[0].Kind != verdict.LostUpdate {
				t.Errorf("with a source: %v, want a lost update", found.Result.Anomalies)
			}
			if kept > 64<<10 {
				t.Errorf("with a source the Checker kept %d bytes, more than its windows need", kept)
			}
		}
	}
}
