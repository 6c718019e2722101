package run

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// TestFences checks the shape of a run with fences: at each one, every
// session writes its key, then the fence's transaction reads those keys
// and every key written since the last fence, and writes its own key,
// which every session then reads first; the summary counts the plan's
// transactions only.
func TestFences(t *testing.T) {
	const sessions, txns, every = 3, 25, 10
	plan, err := workload.NewPlan(workload.PlanConfig{Sessions: sessions, TxnsPerSession: txns, OpsPerTxn: 3, Keys: 20, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	d := &faultyDB{data: map[int64]int64{}, fail: func(int) error { return nil }}
	var buf bytes.Buffer
	sum, err := Run(context.Background(), d, plan, Options{Recorder: jsonl.NewRecorder(&buf), Fences: every})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Committed != sessions*txns {
		t.Fatalf("the summary counts %d committed, want the plan's %d", sum.Committed, sessions*txns)
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	fenceKey := int64(plan.Keys)
	written := map[string]bool{} // keys written since the last fence
	var fences int
	for i, tx := range h.Txns {
		ops := h.Ops[tx.OpStart:tx.OpEnd]
		if h.SessionName(int(tx.Session)) != FenceSession {
			for _, op := range ops {
				if op.Kind == history.Write {
					written[h.FormatKey(op.Key)] = true
				}
			}
			continue
		}
		fences++
		read := map[string]bool{}
		for _, op := range ops[:len(ops)-1] {
			if op.Kind != history.Read {
				t.Fatalf("fence %s: %v", tx.ID, op)
			}
			read[h.FormatKey(op.Key)] = true
		}
		for k := range written {
			if !read[k] {
				t.Fatalf("fence %s does not read key %s, written since the last fence", tx.ID, k)
			}
		}
		last := ops[len(ops)-1]
		if last.Kind != history.Write || h.FormatKey(last.Key) != strconv.FormatInt(fenceKey, 10) {
			t.Fatalf("fence %s ends with %v, not its write", tx.ID, last)
		}
		// The sessions' next transactions read the fence's write first.
		for s := range sessions {
			j := slices.IndexFunc(h.Txns[i+1:], func(u history.Txn) bool { return h.SessionName(int(u.Session)) == strconv.Itoa(s) })
			if j < 0 {
				continue
			}
			next := h.Txns[i+1+j]
			first := h.Ops[next.OpStart]
			if !strings.Contains(next.ID, "/out") || first.Kind != history.Read || first.Value != last.Value {
				t.Fatalf("session %d's first transaction after fence %s is %s: %v", s, tx.ID, next.ID, first)
			}
		}
		clear(written)
	}
	if fences != txns/every {
		t.Fatalf("%d fences, want %d", fences, txns/every)
	}
}

// TestFencesEndWithTheRun: sessions waiting at a fence do not outlive the
// run, when it is cancelled or when the database dies under the others.
func TestFencesEndWithTheRun(t *testing.T) {
	plan, err := workload.NewPlan(workload.PlanConfig{Sessions: 4, TxnsPerSession: 1000, OpsPerTxn: 3, Keys: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &faultyDB{data: map[int64]int64{}, fail: func(n int) error {
		if n == 333 {
			cancel()
		}
		return nil
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := Run(ctx, d, plan, Options{Fences: 7}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a cancelled run with fences did not end")
	}

	dying := &dyingDB{faultyDB: &faultyDB{data: map[int64]int64{}}}
	dying.fail = func(n int) error {
		if n == 100 {
			dying.dead.Store(true)
			return errors.New("connection reset by peer")
		}
		return nil
	}
	sum, err := Run(context.Background(), dying, plan, Options{Fences: 7, Reconnect: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Incomplete() || len(sum.SessionErrors) != 4 {
		t.Fatalf("a run whose database died: %+v", sum)
	}
}
