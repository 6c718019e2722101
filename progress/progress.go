// Package progress carries how far a run has got through a context: every
// long stage of isocheck (parsing, resolving reads, building the polygraph,
// pruning, encoding, solving, saturating, shrinking) starts a Meter, adds
// the work it does to it, and stops as soon as the context ends. The
// command line reads the same Tracker to draw a progress bar and to say, on
// a timeout or a resource limit, which stage was reached and how far.
//
// A Meter costs an atomic add and a non-blocking channel receive per Add,
// so hot loops call it every few hundred items (see Every), not per item.
package progress

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ErrResourceLimit is the cause of a context cancelled because the run
// went past a resource limit (memory); errors.Is finds it in the cause.
var ErrResourceLimit = errors.New("resource limit")

// Stopped reports whether err says that the run was stopped from outside:
// its deadline passed, it was cancelled, or it went past a resource limit.
func Stopped(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, ErrResourceLimit)
}

// Snapshot is what a Tracker knows at one moment.
type Snapshot struct {
	// Stage names the stage running (or last run); empty before the first.
	Stage string
	// Done and Total are the stage's work done and to do, in its own
	// units (Unit); Total is 0 when unknown.
	Done, Total int64
	Unit        string
	// StageElapsed is the time since the stage began, Elapsed the time
	// since the Tracker was made.
	StageElapsed, Elapsed time.Duration
	// Note is what the run says beside its stage (see Tracker.SetNote).
	Note string
}

// Tracker follows the stages of one run. It is safe for concurrent use.
type Tracker struct {
	// OnStage, when set (before the run begins), is called as each stage
	// begins, on the stage's goroutine, before the stage does any work.
	OnStage func(stage string)

	start  time.Time
	mu     sync.Mutex
	cur    *Meter
	stages []Span
	parts  []*part // open parts (see Part), innermost last
	note   string
}

// SetNote sets what the run says beside its stages, such as the verdict
// so far of a check that runs beside it; "" says nothing.
func (t *Tracker) SetNote(note string) {
	t.mu.Lock()
	t.note = note
	t.mu.Unlock()
}

// part is a part of a run that a resource limit may end alone.
type part struct {
	cancel  context.CancelCauseFunc
	limited bool
}

// Part begins a part of a run, such as the check of one level among
// several, that a resource limit may end alone (see Tracker.Limit): the
// returned context ends with the limit's cause, and the run goes on with
// the next part. Call end once the part is done. Without a Tracker in
// ctx, the part is a plain child context.
func Part(ctx context.Context) (context.Context, func()) {
	c, cancel := context.WithCancelCause(ctx)
	t := TrackerOf(ctx)
	if t == nil {
		return c, func() { cancel(nil) }
	}
	p := &part{cancel: cancel}
	t.mu.Lock()
	t.parts = append(t.parts, p)
	t.mu.Unlock()
	return c, func() {
		t.mu.Lock()
		if i := len(t.parts) - 1; i >= 0 && t.parts[i] == p {
			t.parts = t.parts[:i]
		}
		t.mu.Unlock()
		cancel(nil)
	}
}

// Limit ends the innermost open part of the run (see Part) with cause,
// which should wrap ErrResourceLimit, and reports whether there was one:
// when not, the caller ends the whole run. A part ended already is not
// ended again, nor an outer one in its place, while it winds down.
func (t *Tracker) Limit(cause error) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.parts)
	if n == 0 {
		return false
	}
	if p := t.parts[n-1]; !p.limited {
		p.limited = true
		p.cancel(cause)
	}
	return true
}

// Span is one stage of a run: its name, and when it began and ended
// (the next stage's beginning, or now), from the Tracker's start.
type Span struct {
	Stage      string
	Start, End time.Duration
}

// Stages returns the stages the run has been through, in order.
func (t *Tracker) Stages() []Span {
	t.mu.Lock()
	defer t.mu.Unlock()
	spans := append([]Span(nil), t.stages...)
	if n := len(spans); n > 0 {
		spans[n-1].End = time.Since(t.start)
	}
	return spans
}

// NewTracker returns a Tracker whose clock starts now.
func NewTracker() *Tracker { return &Tracker{start: time.Now()} }

// Snapshot returns the current stage and its progress.
func (t *Tracker) Snapshot() Snapshot {
	t.mu.Lock()
	m, note := t.cur, t.note
	t.mu.Unlock()
	s := Snapshot{Elapsed: time.Since(t.start), Note: note}
	if m != nil {
		s.Stage, s.Total, s.Unit = m.stage, m.total, m.unit
		s.Done = m.done.Load()
		s.StageElapsed = time.Since(m.start)
	}
	return s
}

type trackerKey struct{}

// WithTracker returns a context whose stages report to t.
func WithTracker(ctx context.Context, t *Tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

// TrackerOf returns the Tracker of ctx, or nil.
func TrackerOf(ctx context.Context) *Tracker {
	t, _ := ctx.Value(trackerKey{}).(*Tracker)
	return t
}

// Meter measures one stage and watches its context. Add and Err are safe
// for concurrent use, so the goroutines of a parallel stage share one.
type Meter struct {
	ctx   context.Context
	done  atomic.Int64
	stop  <-chan struct{}
	stage string
	unit  string
	total int64
	start time.Time
}

// Start begins a stage named name of total units (0 if unknown) of unit
// (such as "transactions" or "bytes"). The Meter reports to the Tracker of
// ctx, if any. A nil ctx means one that never ends.
func Start(ctx context.Context, name string, total int64, unit string) *Meter {
	if ctx == nil {
		ctx = context.Background()
	}
	m := &Meter{ctx: ctx, stop: ctx.Done(), stage: name, unit: unit, total: total, start: time.Now()}
	if t := TrackerOf(ctx); t != nil {
		t.mu.Lock()
		t.cur = m
		at := m.start.Sub(t.start)
		if n := len(t.stages); n > 0 {
			t.stages[n-1].End = at
		}
		t.stages = append(t.stages, Span{Stage: name, Start: at})
		t.mu.Unlock()
		if t.OnStage != nil {
			t.OnStage(name)
		}
	}
	return m
}

// Add records n more units done. Once the context has ended it returns
// the reason (context.Cause: context.DeadlineExceeded, or an error wrapping
// ErrResourceLimit); the stage should then return it.
func (m *Meter) Add(n int64) error {
	m.done.Add(n)
	return m.Err()
}

// Set records that done units are done in all.
func (m *Meter) Set(done int64) error {
	m.done.Store(done)
	return m.Err()
}

// Err returns the reason the context ended, or nil while it runs.
func (m *Meter) Err() error {
	select {
	case <-m.stop:
		return context.Cause(m.ctx)
	default:
		return nil
	}
}

// Every is how many cheap items (a few nanoseconds each) a hot loop does
// between calls to Add: about 20 µs of work, so that a stage stops well
// within a millisecond of its deadline and the meter costs nothing
// measurable.
const Every = 4096

// Reader returns r counting the bytes read on m, and failing with the
// context's reason once it has ended: a parser reading through it stops
// at its next buffer refill.
func Reader(m *Meter, r io.Reader) io.Reader { return &reader{m: m, r: r} }

type reader struct {
	m *Meter
	r io.Reader
}

func (r *reader) Read(p []byte) (int, error) {
	if err := r.m.Err(); err != nil {
		return 0, err
	}
	n, err := r.r.Read(p)
	r.m.done.Add(int64(n))
	return n, err
}
