package sqljsonl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/progress"
)

// TestReadSQLContextStops: a SQL history is read no further once the
// context has ended, and the error is the context's reason, not bad
// input: at once on an ended context, soon after the deadline on an
// endless input.
func TestReadSQLContextStops(t *testing.T) {
	line := `{"session": 1, "level": "SER", "events": [{"select": "t", "where": "TRUE", "rows": []}]}` + "\n"
	limit := fmt.Errorf("%w: memory", progress.ErrResourceLimit)
	ended, cancel := context.WithCancelCause(context.Background())
	cancel(limit)
	if _, err := sqljsonl.ReadContext(ended, strings.NewReader(line), "one"); !errors.Is(err, limit) {
		t.Errorf("ended context: %v, want %v", err, limit)
	} else {
		formattest.CheckStopped(t, err)
	}
	if _, err := sqljsonl.ReadFileContext(ended, "../../examples/sql-phantom-ser.jsonl"); !errors.Is(err, limit) {
		t.Errorf("ended context, file: %v, want %v", err, limit)
	}
	// The same line read forever is a valid history as far as it goes.
	ctx, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if _, err := sqljsonl.ReadContext(ctx, &formattest.Endless{Line: []byte(line)}, "endless"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("endless input: %v, want %v", err, context.DeadlineExceeded)
	} else {
		formattest.CheckStopped(t, err)
	}
}

// TestReadSQLContextProgress: reading reports the stage "parse" in bytes.
func TestReadSQLContextProgress(t *testing.T) {
	path := "../../examples/sql-phantom-ser.jsonl"
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := progress.NewTracker()
	if _, err := sqljsonl.ReadFileContext(progress.WithTracker(context.Background(), tr), path); err != nil {
		t.Fatal(err)
	}
	snap := tr.Snapshot()
	if snap.Stage != "parse" || snap.Unit != "bytes" || snap.Total != st.Size() || snap.Done != st.Size() {
		t.Errorf("progress %+v, want parse, %d of %d bytes", snap, st.Size(), st.Size())
	}
}
