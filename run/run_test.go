package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/workload"
)

// faultyDB is a serial in-memory store whose commits fail on a schedule,
// to test how the runner classifies and records failures. Real stores are
// tested in the adapters' packages and end to end in cmd/isocheck.
type faultyDB struct {
	mu      sync.Mutex
	data    map[int64]int64
	commits int
	// fail returns the error of the n-th commit (from 0), nil to commit.
	fail func(n int) error
	// applyUnknown says an unknown commit installs its writes anyway.
	applyUnknown bool
	sessions     int
}

func (d *faultyDB) Level() string { return "serializable" }
func (d *faultyDB) Close() error  { return nil }
func (d *faultyDB) Session(context.Context, int) (db.Session, error) {
	d.mu.Lock()
	d.sessions++
	d.mu.Unlock()
	return &faultySession{d: d}, nil
}

type faultySession struct{ d *faultyDB }

func (s *faultySession) Close() error { return nil }
func (s *faultySession) Begin(context.Context) (db.Txn, error) {
	s.d.mu.Lock() // transactions run one at a time
	return &faultyTxn{d: s.d, writes: map[int64]int64{}}, nil
}

type faultyTxn struct {
	d      *faultyDB
	writes map[int64]int64
	done   bool
}

func (t *faultyTxn) Read(_ context.Context, k int64) (int64, bool, error) {
	if v, ok := t.writes[k]; ok {
		return v, true, nil
	}
	v, ok := t.d.data[k]
	return v, ok, nil
}
func (t *faultyTxn) Write(_ context.Context, k, v int64) error { t.writes[k] = v; return nil }
func (t *faultyTxn) Append(context.Context, int64, int64) error {
	return errors.New("no lists")
}
func (t *faultyTxn) ReadList(context.Context, int64) ([]int64, error) {
	return nil, errors.New("no lists")
}
func (t *faultyTxn) Commit(context.Context) error {
	err := t.d.fail(t.d.commits)
	t.d.commits++
	if o, _ := db.Classify(err); o == history.Committed || o == history.Unknown && t.d.applyUnknown {
		for k, v := range t.writes {
			t.d.data[k] = v
		}
	}
	t.end()
	return err
}
func (t *faultyTxn) Rollback(context.Context) error { t.end(); return nil }
func (t *faultyTxn) end() {
	if !t.done {
		t.done = true
		t.d.mu.Unlock()
	}
}

func TestRunRecordsOutcomes(t *testing.T) {
	plan, err := workload.NewPlan(workload.PlanConfig{Workload: workload.MiniTxn, Sessions: 3, TxnsPerSession: 40, Keys: 4, ReadProportion: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &faultyDB{data: map[int64]int64{}, applyUnknown: true, fail: func(n int) error {
		switch n % 10 {
		case 3:
			return db.Abort("conflict", nil)
		case 7:
			return errors.New("connection reset")
		}
		return nil
	}}
	var buf bytes.Buffer
	tr := progress.NewTracker()
	sum, err := Run(progress.WithTracker(context.Background(), tr), d, plan, Options{Recorder: jsonl.NewRecorder(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Committed != 96 || sum.Aborted != 12 || sum.Unknown != 12 || sum.AbortReasons["conflict"] != 12 {
		t.Fatalf("summary: %+v", sum)
	}
	if s := tr.Snapshot(); s.Stage != "run" || s.Done != 120 || s.Total != 120 {
		t.Fatalf("progress reached %+v, want run at 120 of 120", s)
	}
	if d.sessions <= 3 {
		t.Fatalf("%d sessions opened: an unknown commit must reconnect", d.sessions)
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("recorded history: %v", err)
	}
	counts := map[history.Status]int{}
	for _, tx := range h.Txns {
		counts[tx.Status]++
		if tx.Start == history.NoTime || (tx.End == history.NoTime) != (tx.Status == history.Unknown) {
			t.Fatalf("%s %s: start %d end %d", tx.ID, tx.Status, tx.Start, tx.End)
		}
	}
	if counts[history.Committed] != 96 || counts[history.Aborted] != 12 || counts[history.Unknown] != 12 {
		t.Fatalf("recorded statuses %v", counts)
	}
	// After a commit without an answer the session goes on as a new
	// history session: its next transaction is not ordered after it.
	last := map[string]int{} // plan session → last transaction
	for i, tx := range h.Txns {
		plan, _, _ := strings.Cut(tx.ID, "/")
		if j, ok := last[plan]; ok && h.Txns[j].Status == history.Unknown && h.Txns[j].Session == tx.Session {
			t.Fatalf("%s follows the unknown %s in session %s", tx.ID, h.Txns[j].ID, h.SessionName(int(tx.Session)))
		}
		last[plan] = i
	}
	followed := 0 // unknown transactions that are not their session's last
	for _, tx := range h.Txns {
		if tx.Status == history.Unknown && !strings.HasSuffix(tx.ID, "/39") {
			followed++
		}
	}
	if got := len(h.Sessions); got != 3+followed {
		t.Fatalf("%d history sessions, want 3 and one more after each of the %d unknown commits a transaction followed", got, followed)
	}
	var out strings.Builder
	sum.Write(&out)
	for _, want := range []string{"120 transactions", "committed 96, aborted 12 (10.0%), unknown 12", "conflict", "p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunCompareAndSet(t *testing.T) {
	// One session: every compare-and-set sees the value it expects, so
	// each writes, and the recorded reads chain the writes.
	plan := &workload.Plan{Workload: workload.LWT, Keys: 1, Stride: 10, Sessions: [][]workload.TxnPlan{{
		{Ops: []workload.OpPlan{{Kind: workload.CASOp, Key: 0, Value: 11}}},
		{Ops: []workload.OpPlan{{Kind: workload.CASOp, Key: 0, Value: 12}}},
	}}}
	d := &faultyDB{data: map[int64]int64{}, fail: func(int) error { return nil }}
	var buf bytes.Buffer
	if _, err := Run(context.Background(), d, plan, Options{Recorder: jsonl.NewRecorder(&buf)}); err != nil {
		t.Fatal(err)
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := histgen.Describe(h), "init=null\n"; !strings.HasPrefix(got, want) || !strings.Contains(got, "r(0)=null w(0)=11") || !strings.Contains(got, "r(0)=11 w(0)=12") {
		t.Fatalf("history:\n%s", got)
	}
	// Another session changed the key: the compare fails and the
	// transaction only reads.
	d.data[0] = 99
	buf.Reset()
	if _, err := Run(context.Background(), d, plan, Options{Recorder: jsonl.NewRecorder(&buf)}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, `"ops":[["r",0,99]]`) {
		t.Fatalf("a failed compare-and-set recorded as:\n%s", got)
	}
}

func TestRunInterrupted(t *testing.T) {
	plan, err := workload.NewPlan(workload.PlanConfig{Sessions: 2, TxnsPerSession: 1000, OpsPerTxn: 3, Keys: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &faultyDB{data: map[int64]int64{}, fail: func(n int) error {
		if n == 50 {
			cancel()
		}
		return nil
	}}
	var buf bytes.Buffer
	sum, err := Run(ctx, d, plan, Options{Recorder: jsonl.NewRecorder(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Committed < 51 || sum.Committed > 60 {
		t.Fatalf("interrupted run: %+v", sum)
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("the history of an interrupted run: %v", err)
	}
	if len(h.Txns) != sum.Committed {
		t.Fatalf("%d transactions recorded, %d committed", len(h.Txns), sum.Committed)
	}
}

type downDB struct{ faultyDB }

func (*downDB) Session(context.Context, int) (db.Session, error) {
	return nil, errors.New("connection refused")
}

func TestRunNoConnection(t *testing.T) {
	plan, _ := workload.NewPlan(workload.PlanConfig{Sessions: 2, TxnsPerSession: 3, Keys: 10})
	_, err := Run(context.Background(), &downDB{}, plan, Options{Reconnect: time.Second})
	if err == nil || !strings.Contains(err.Error(), "no session could connect") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run on a database that refuses connections: %v", err)
	}
}

// dyingDB is a faultyDB that stops answering after its commit number
// dieAt: no session connects, and a connected one fails to begin.
type dyingDB struct {
	*faultyDB
	dead atomic.Bool
}

var errRefused = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func (d *dyingDB) Session(ctx context.Context, i int) (db.Session, error) {
	if d.dead.Load() {
		return nil, errRefused
	}
	s, err := d.faultyDB.Session(ctx, i)
	return &dyingSession{Session: s, d: d}, err
}

type dyingSession struct {
	db.Session
	d *dyingDB
}

func (s *dyingSession) Begin(ctx context.Context) (db.Txn, error) {
	if s.d.dead.Load() {
		return nil, errRefused
	}
	return s.Session.Begin(ctx)
}

// TestRunDatabaseDies: a database that stops answering mid-run ends the
// run within the reconnect window, and the summary says the run is
// incomplete, how much of the plan did not run, and why.
func TestRunDatabaseDies(t *testing.T) {
	plan, err := workload.NewPlan(workload.PlanConfig{Workload: workload.MiniTxn, Sessions: 4, TxnsPerSession: 1000, Keys: 10, ReadProportion: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &dyingDB{faultyDB: &faultyDB{data: map[int64]int64{}}}
	d.fail = func(n int) error {
		if n == 100 {
			d.dead.Store(true)
		}
		return nil
	}
	var buf bytes.Buffer
	var mu sync.Mutex
	var waits []Waiting
	sum, err := Run(context.Background(), d, plan, Options{
		Recorder:  jsonl.NewRecorder(&buf),
		Reconnect: 300 * time.Millisecond,
		Waiting: func(w Waiting) {
			mu.Lock()
			waits = append(waits, w)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Incomplete() || sum.Interrupted || sum.Done() >= sum.Planned || sum.Planned != 4000 {
		t.Fatalf("a run whose database died: incomplete %v, interrupted %v, %d of %d done", sum.Incomplete(), sum.Interrupted, sum.Done(), sum.Planned)
	}
	if len(sum.SessionErrors) != 4 {
		t.Fatalf("%d sessions stopped early, want 4: %v", len(sum.SessionErrors), sum.SessionErrors)
	}
	if why := sum.Why(); !strings.Contains(why, "the database stopped answering") || !strings.Contains(why, "connection refused") {
		t.Errorf("Why() = %q", why)
	}
	if len(waits) == 0 {
		t.Fatal("Waiting was never called")
	}
	last := waits[len(waits)-1]
	if last.Sessions < 1 || last.Sessions > 4 || !errors.Is(last.Err, errRefused) {
		t.Errorf("last Waiting: %+v", last)
	}
	var out strings.Builder
	sum.Write(&out)
	want := fmt.Sprintf("INCOMPLETE: %d of the plan's 4000 transactions not run (the database stopped answering", 4000-sum.Done())
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
	h, err := format.Read(&buf, "run.jsonl", format.JSONL)
	if err != nil {
		t.Fatalf("the history of a run whose database died: %v", err)
	}
	if len(h.Txns) != sum.Done() {
		t.Fatalf("%d transactions recorded, the summary counts %d", len(h.Txns), sum.Done())
	}
}

// TestRunComplete: a run that ran its whole plan is not incomplete.
func TestRunComplete(t *testing.T) {
	plan, _ := workload.NewPlan(workload.PlanConfig{Sessions: 2, TxnsPerSession: 5, OpsPerTxn: 2, Keys: 10})
	sum, err := Run(context.Background(), &faultyDB{data: map[int64]int64{}, fail: func(int) error { return nil }}, plan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sum.Write(&out)
	if sum.Incomplete() || sum.Why() != "" || strings.Contains(out.String(), "INCOMPLETE") {
		t.Fatalf("a complete run: %+v\n%s", sum, out.String())
	}
}
