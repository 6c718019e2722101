package progress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestMeterStopsWithItsContext(t *testing.T) {
	tr := NewTracker()
	ctx, cancel := context.WithCancelCause(WithTracker(context.Background(), tr))
	m := Start(ctx, "resolve", 10, "transactions")
	if err := m.Add(3); err != nil {
		t.Fatalf("Add before the end: %v", err)
	}
	s := tr.Snapshot()
	if s.Stage != "resolve" || s.Done != 3 || s.Total != 10 || s.Unit != "transactions" {
		t.Fatalf("snapshot = %+v, want resolve 3/10 transactions", s)
	}
	limit := fmt.Errorf("%w: memory above 1 GiB", ErrResourceLimit)
	cancel(limit)
	err := m.Add(1)
	if !errors.Is(err, ErrResourceLimit) || !Stopped(err) {
		t.Fatalf("Add after cancel = %v, want the resource limit", err)
	}
	if got := tr.Snapshot().Done; got != 4 {
		t.Fatalf("done = %d, want 4", got)
	}
}

func TestMeterDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	m := Start(ctx, "solve", 0, "")
	<-ctx.Done()
	if err := m.Err(); !errors.Is(err, context.DeadlineExceeded) || !Stopped(err) {
		t.Fatalf("Err after the deadline = %v", err)
	}
	if Stopped(errors.New("bad input")) {
		t.Fatal("an input error counts as stopped")
	}
}

func TestReaderStopsParsing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := Start(ctx, "parse", 8, "bytes")
	r := Reader(m, strings.NewReader("abcdefgh"))
	buf := make([]byte, 4)
	if n, err := r.Read(buf); n != 4 || err != nil {
		t.Fatalf("first read = %d, %v", n, err)
	}
	cancel()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel = %v, want context.Canceled", err)
	}
	if m.done.Load() != 4 {
		t.Fatalf("bytes counted = %d, want 4", m.done.Load())
	}
}

func TestStartWithoutTracker(t *testing.T) {
	//lint:ignore SA1012 Start takes a nil ctx as context.Background
	m := Start(nil, "x", 0, "")
	if err := m.Add(1); err != nil {
		t.Fatal(err)
	}
}

// TestStagesAndOnStage: the Tracker lists the stages in order, and calls
// OnStage as each begins, so that a test can stop a run in a chosen stage.
func TestStagesAndOnStage(t *testing.T) {
	tr := NewTracker()
	var seen []string
	tr.OnStage = func(s string) { seen = append(seen, s) }
	ctx := WithTracker(context.Background(), tr)
	for _, name := range []string{"parse", "resolve", "parse"} {
		Start(ctx, name, 0, "")
	}
	spans := tr.Stages()
	if len(spans) != 3 || spans[0].Stage != "parse" || spans[1].Stage != "resolve" || spans[2].Stage != "parse" {
		t.Fatalf("stages = %+v", spans)
	}
	for i := range spans {
		if spans[i].End < spans[i].Start || i > 0 && spans[i].Start != spans[i-1].End {
			t.Errorf("span %d = %+v does not follow %+v", i, spans[i], spans[max(i-1, 0)])
		}
	}
	if fmt.Sprint(seen) != "[parse resolve parse]" {
		t.Errorf("OnStage saw %v", seen)
	}
}
