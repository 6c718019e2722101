package lwt

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

func rd(p int, v int64, call, ret int64) Op {
	return Op{Process: p, Kind: register.Read, Value: v, Call: call, Return: ret}
}
func wr(p int, v int64, call, ret int64) Op {
	return Op{Process: p, Kind: register.Write, Value: v, Call: call, Return: ret}
}
func cas(p int, old, nw int64, call, ret int64) Op {
	return Op{Process: p, Kind: register.CAS, Old: old, New: nw, Call: call, Return: ret}
}
func fail(o Op) Op          { o.Outcome = register.Fail; return o }
func info(o Op) Op          { o.Outcome, o.Return = register.Info, Never; return o }
func key(k string, o Op) Op { o.Key = k; return o }

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		ops  []Op
		ok   bool
		op   int    // the violating operation
		why  string // in the reason
		key  string
	}{
		{name: "valid chain", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 2), rd(1, 1, 3, 4), cas(1, 1, 2, 5, 6), rd(0, 2, 7, 8)}},
		{name: "concurrent ops may reorder", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 10), rd(1, 1, 1, 2), cas(2, 1, 2, 1, 9), rd(3, Nil, 0, 4)}},
		{name: "stale read", op: 2, why: "read 1, but 1 had already been overwritten: cas(1,2) ok by process 1 at [2,3] replaced it and returned at 3, before the read was invoked at 4", ops: []Op{
			cas(0, Nil, 1, 0, 1), cas(1, 1, 2, 2, 3), rd(2, 1, 4, 5)}},
		{name: "stale read further back", op: 3, why: "version order forced by CAS is 1 → 2 → 3", ops: []Op{
			cas(0, Nil, 1, 0, 1), cas(1, 1, 2, 2, 20), cas(1, 2, 3, 11, 12), rd(2, 1, 13, 14)}},
		{name: "lost update: two CAS from one value", op: 2, why: "lost update", ops: []Op{
			cas(0, Nil, 1, 0, 1), cas(1, 1, 2, 2, 5), cas(2, 1, 3, 2, 5)}},
		{name: "failed CAS that must have succeeded", op: 1, why: "in between the register holds only 1", ops: []Op{
			cas(0, Nil, 1, 0, 1), fail(cas(1, 1, 2, 2, 3)), rd(2, 1, 4, 5)}},
		{name: "failed CAS concurrent with a change", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 1), fail(cas(1, 1, 2, 2, 6)), cas(2, 1, 3, 3, 4)}},
		{name: "failed CAS before the value existed", ok: true, ops: []Op{
			fail(cas(1, 1, 2, 0, 6)), cas(0, Nil, 1, 3, 4)}},
		{name: "failed CASes ordered by real time", op: 2, why: "failed", ops: []Op{
			// The register holds nil, then 1 from t=5 on (before 10: either).
			// fail cas(nil,·) must come after 1 was written, and the second
			// failed cas(1,·) after the first: then only 1 is left.
			cas(0, Nil, 1, 5, 10), fail(cas(1, Nil, 7, 11, 12)), fail(cas(2, 1, 8, 13, 14))}},
		{name: "info CAS that took effect", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 1), info(cas(1, 1, 2, 2, 0)), rd(2, 2, 5, 6)}},
		{name: "info CAS that did not", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 1), info(cas(1, 1, 2, 2, 0)), rd(2, 1, 10, 11)}},
		{name: "info CAS read before invoked", op: 1, why: "before it was written", ops: []Op{
			cas(0, Nil, 1, 0, 1), info(cas(1, 1, 2, 8, 0)), rd(2, 2, 5, 6)}},
		{name: "info write explains a failed CAS", ok: true, ops: []Op{
			wr(0, 1, 0, 1), info(wr(1, 2, 0, 0)), fail(cas(2, 1, 9, 2, 3))}},
		{name: "info write invoked too late", op: 2, why: "failed", ops: []Op{
			wr(0, 1, 0, 1), info(wr(1, 2, 4, 0)), fail(cas(2, 1, 9, 2, 3))}},
		{name: "info read and failed write ignored", ok: true, ops: []Op{
			info(rd(0, 7, 0, 0)), fail(wr(1, 5, 0, 1)), rd(2, Nil, 2, 3)}},
		{name: "read of a value never written", op: 1, why: "no write or CAS wrote 7", ops: []Op{
			wr(0, 1, 0, 1), rd(1, 7, 2, 3)}},
		{name: "read of a failed write", op: 1, why: "no write or CAS wrote 5", ops: []Op{
			fail(wr(0, 5, 0, 1)), rd(1, 5, 2, 3)}},
		{name: "read before the write", op: 1, why: "before it was written", ops: []Op{
			rd(1, 1, 0, 1), wr(0, 1, 2, 3)}},
		{name: "nil after a write", op: 1, why: "before the read was invoked at 2", ops: []Op{
			wr(0, 1, 0, 1), rd(1, Nil, 2, 3)}},
		{name: "touching intervals are concurrent", ok: true, ops: []Op{
			cas(0, Nil, 1, 0, 5), cas(1, 1, 2, 5, 7), rd(2, 1, 7, 8)}},
		{name: "CAS cycle", op: 0, why: "cycle", ops: []Op{
			cas(0, 1, 2, 0, 1), cas(1, 2, 1, 2, 3)}},
		{name: "blind writes in some order", ok: true, ops: []Op{
			wr(0, 1, 0, 10), wr(1, 2, 0, 10), rd(2, 2, 11, 12), rd(2, 2, 13, 14)}},
		{name: "blind writes in no order", why: "in neither order", ops: []Op{
			wr(0, 1, 0, 10), wr(1, 2, 0, 10), rd(2, 1, 11, 12), rd(2, 2, 13, 14), rd(2, 1, 15, 16)}},
		{name: "chains of writes and CAS", ok: true, ops: []Op{
			wr(0, 1, 0, 1), cas(0, 1, 2, 2, 3), wr(1, 10, 4, 5), cas(1, 10, 11, 6, 7), fail(cas(2, 10, 12, 8, 9)), rd(2, 11, 10, 11)}},
		{name: "duplicate values: valid", ok: true, ops: []Op{
			wr(0, 1, 0, 1), wr(1, 2, 2, 3), wr(0, 1, 4, 5), rd(1, 1, 6, 7)}},
		{name: "duplicate values: invalid", why: "exact search", ops: []Op{
			wr(0, 1, 0, 1), wr(1, 2, 2, 3), rd(1, 1, 4, 5), cas(2, 2, 1, 6, 7)}},
		{name: "independent keys", key: "b", op: 4, why: "overwritten", ops: []Op{
			key("a", cas(0, Nil, 1, 0, 1)), key("b", cas(1, Nil, 1, 0, 1)), key("b", cas(1, 1, 2, 2, 3)), key("a", rd(2, 1, 4, 5)), key("b", rd(2, 1, 4, 5))}},
		{name: "returned before called", op: 0, why: "returned before it was called", ops: []Op{
			rd(0, Nil, 5, 4)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := checkOps(t, tc.ops)
			if want := porcupineCheck(tc.ops, 0); res.OK() != (want == "Ok") {
				t.Errorf("Porcupine disagrees: %v", want)
			}
			if tc.ok {
				if !res.OK() {
					t.Fatalf("got %v, want linearizable", res)
				}
				return
			}
			if res.OK() || res.Violation == nil {
				t.Fatalf("got %v, want a violation", res.Verdict)
			}
			v := res.Violation
			if tc.why != "" && !strings.Contains(v.Reason, tc.why) {
				t.Errorf("reason %q does not say %q", v.Reason, tc.why)
			}
			if tc.op >= 0 && tc.why != "in neither order" && tc.why != "exact search" && v.Op != tc.op {
				t.Errorf("violating op %d, want %d (%s)", v.Op, tc.op, v.Reason)
			}
			if v.Key != tc.key {
				t.Errorf("key %q, want %q", v.Key, tc.key)
			}
			t.Log(res)
		})
	}
}

// Generated histories: valid ones pass, injected bugs are found, by the
// fast path, at every concurrency.
func TestGenerated(t *testing.T) {
	for _, c := range []int{1, 2, 4, 8, 16, 32} {
		for _, inj := range []Injection{NoInjection, StaleRead, LostCAS, WrongFailedCAS} {
			for seed := range uint64(5) {
				ops, at := Generate(GenConfig{Processes: c, Ops: 2000, Seed: seed, ReadFrac: 0.4, CASHit: 0.5, Inject: inj})
				res := checkOps(t, ops)
				if res.Searched != 0 {
					t.Errorf("c%d %v seed %d: the exact search was needed", c, inj, seed)
				}
				switch {
				case inj == NoInjection && !res.OK():
					t.Errorf("c%d seed %d: valid history rejected: %v", c, seed, res)
				case inj != NoInjection && at < 0:
					t.Errorf("c%d %v seed %d: nothing injected", c, inj, seed)
				case inj != NoInjection && res.OK():
					t.Errorf("c%d %v seed %d: injected bug at op %d not found", c, inj, seed, at)
				}
			}
		}
	}
	// With blind writes and indeterminate operations the valid ones stay
	// valid.
	for seed := range uint64(20) {
		ops, _ := Generate(GenConfig{Processes: 8, Ops: 2000, Seed: seed, ReadFrac: 0.3, WriteFrac: 0.1, CASHit: 0.5, InfoFrac: 0.05, Keys: 3})
		if res := checkOps(t, ops); !res.OK() {
			t.Errorf("seed %d: valid history with writes and info rejected: %v", seed, res)
		}
	}
}

// blowUp is a history whose exact search needs millions of states (issue
// 8: 9.4 GB in 60 s before the search had a memory bound).
func blowUp() []Op {
	ops, _ := Generate(GenConfig{Processes: 32, Ops: 12000, Values: 2, Seed: 1, ReadFrac: 0.4, WriteFrac: 0.1, CASHit: 0.5})
	return ops
}

// The exact search stops at its memory bound, with a reason, and its
// memory stays near the bound.
func TestSearchMemory(t *testing.T) {
	ops := blowUp()
	const limit = 8 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := CheckWith(context.Background(), ops, Nil, Options{SearchMemory: limit})
	runtime.ReadMemStats(&after)
	if err != nil || res.Verdict != verdict.Unknown || res.Stopped {
		t.Fatalf("got %v, %v; want no verdict, for the check's own limit", res, err)
	}
	want := "unknown: resource limit: the exact search needed more than "
	if s := res.String(); !strings.HasPrefix(s, want) || !strings.HasSuffix(s, " states (~8 MiB)") {
		t.Errorf("got %q, want %q... states (~8 MiB)", s, want)
	}
	if res.Searched != 1 {
		t.Errorf("searched %d keys", res.Searched)
	}
	// All the memory the check allocated, garbage included.
	if n := after.TotalAlloc - before.TotalAlloc; n > 3*limit {
		t.Errorf("the check allocated %d bytes, bound %d", n, limit)
	}
	t.Logf("%v; %d bytes allocated", res, after.TotalAlloc-before.TotalAlloc)
}

// The check stops when its context ends, in the fast path or the search,
// and says where.
func TestCheckStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := Check(ctx, blowUp(), Nil)
	if err != nil || res.Verdict != verdict.Unknown || !res.Stopped || res.Stage != "" ||
		!strings.HasPrefix(res.String(), "unknown: timed out in the exact search after ") || !strings.HasSuffix(res.Reason, " states") {
		t.Errorf("got %v (stopped %v, stage %q), %v", res, res.Stopped, res.Stage, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	ops, _ := Generate(GenConfig{Processes: 8, Ops: 100000, Keys: 2, Seed: 1, ReadFrac: 0.4, CASHit: 0.5})
	tr := progress.NewTracker()
	res, err = Check(progress.WithTracker(ctx, tr), ops, Nil)
	if err != nil || res.Verdict != verdict.Unknown || !res.Stopped || res.Stage != "linearizability" ||
		res.String() != "unknown: cancelled in the fast check after 0 of 100000 operations" {
		t.Errorf("got %v (stopped %v, stage %q), %v", res, res.Stopped, res.Stage, err)
	}
}

// TestCheckInput: an operation outside the register model is an error,
// with no Result; one that returns before it is called is a violation.
func TestCheckInput(t *testing.T) {
	for _, o := range []Op{{Kind: register.CAS + 1}, {Outcome: register.Info + 1}} {
		ops := []Op{rd(0, Nil, 0, 1), o}
		if res, err := Check(context.Background(), ops, Nil); err == nil || res != nil {
			t.Errorf("%v: got %v, %v; want an error", o, res, err)
		}
	}
	res, err := Check(context.Background(), []Op{rd(0, Nil, 2, 1)}, Nil)
	if err != nil || res.Verdict != verdict.Violated {
		t.Errorf("an operation returning before its call: got %v, %v; want a violation", res, err)
	}
}

// checkOps is Check of ops on registers that start at Nil, failing t on
// an error.
func checkOps(t testing.TB, ops []Op) *Result {
	t.Helper()
	res, err := Check(context.Background(), ops, Nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// FuzzStateCache checks the exact search's cache against a map of whole
// sets: data is a sequence of (bit to flip, value) steps over a set of 200
// operations, each step adding the set.
func FuzzStateCache(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 64, 2, 64, 2, 199, 0, 0, 1})
	f.Add([]byte{1, 0, 2, 0, 1, 0, 2, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c stateCache
		c.init(-1)
		done := make([]uint64, 4)
		seen := map[string]bool{}
		for k := 0; k+1 < len(data); k += 2 {
			j := int(data[k]) % 200
			done[j>>6] ^= 1 << (j & 63)
			v := int64(data[k+1]%3) - 1
			// The search's hint: a word before which all are ones.
			lo := 0
			for lo < len(done) && done[lo] == ^uint64(0) {
				lo++
			}
			lo = min(lo, int(data[k])%4)
			isNew, err := c.add(done, lo, v)
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprint(done, v)
			if isNew == seen[key] {
				t.Fatalf("step %d: add says new %v for %s, seen %v", k/2, isNew, key, seen[key])
			}
			seen[key] = true
		}
		if c.entries != int64(len(seen)) {
			t.Fatalf("%d entries, %d sets", c.entries, len(seen))
		}
	})
}
