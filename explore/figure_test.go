package explore_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
)

// TestFigureWriteBroken checks the text of a broken history: each
// assertion broken on a line of its own, then the history in the native
// format, which reads back with every transaction.
func TestFigureWriteBroken(t *testing.T) {
	app, _ := apps.Lookup("courseware")
	res, err := explore.Explore(context.Background(), app.Program(2, 1, 1), explore.Options{Level: level.RC, StopAtFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	h := res.First
	if h == nil {
		t.Fatal("courseware keeps its assertions at RC")
	}
	var b bytes.Buffer
	if err := h.WriteBroken(&b); err != nil {
		t.Fatal(err)
	}
	head, jsonl, ok := strings.Cut(b.String(), "\nThe history (native JSONL):\n")
	if !ok {
		t.Fatalf("no history:\n%s", b.String())
	}
	var want strings.Builder
	for _, f := range h.Failures() {
		want.WriteString("  " + f + "\n")
	}
	if head != want.String() || head == "" {
		t.Errorf("assertions %q, want %q", head, want.String())
	}
	kv, err := format.Read(strings.NewReader(jsonl), "history", format.JSONL)
	if err != nil || len(kv.Txns) != len(h.Txns) {
		t.Errorf("the history does not read back (%v):\n%s", err, jsonl)
	}
}
