package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isocheck/isocheck/progress"
)

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestShowProgress: the bar names the stage and its progress once the run
// has lasted long enough, and nothing before.
func TestShowProgress(t *testing.T) {
	tr := progress.NewTracker()
	ctx := progress.WithTracker(context.Background(), tr)
	var quiet, shown syncBuffer
	stopQuiet := showProgress(tr, &quiet, time.Hour)
	stopShown := showProgress(tr, &shown, 0)
	m := progress.Start(ctx, "resolve reads", 1000, "transactions")
	m.Add(250)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(shown.String(), "250/1000") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stopQuiet()
	stopShown()
	if got := shown.String(); !strings.Contains(got, "resolve reads") || !strings.Contains(got, "250/1000") {
		t.Errorf("the bar shows %q, want the stage and 250/1000", got)
	}
	if got := quiet.String(); got != "" {
		t.Errorf("before its time the bar showed %q", got)
	}
}

// TestNoProgressWhenPiped: a run whose stderr is not a terminal writes
// nothing there unless --progress asks.
func TestNoProgressWhenPiped(t *testing.T) {
	code, _, errs := runCmd("check", "../../examples/write-skew.jsonl")
	if code != exitSatisfied || errs != "" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
