package isocheck_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/isocheck/isocheck"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// The front door never passes what it did not check: an empty history
// and a bad file are errors with the file's name, and a check whose time
// is up gives no verdict.
func TestFrontDoorNeverPassesSilently(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"session\": 1, \"ops\": [[\"w\", \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := isocheck.ReadFile(bad); err == nil {
		t.Error("a malformed history read without an error")
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	aborted := filepath.Join(dir, "aborted.jsonl")
	if err := os.WriteFile(aborted, []byte(`{"session": 1, "status": "aborted", "ops": [["w", "x", 1]]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{empty, aborted} {
		h, err := isocheck.ReadFile(path)
		if err != nil {
			continue // refused as it is read: fine
		}
		if v, err := isocheck.Check(context.Background(), h, level.SER); !errors.Is(err, isocheck.ErrNothingToCheck) {
			t.Errorf("%s: %+v, %v; want ErrNothingToCheck", filepath.Base(path), v, err)
		}
		if _, err := isocheck.CheckAll(context.Background(), h); !errors.Is(err, isocheck.ErrNothingToCheck) {
			t.Errorf("%s: every level: %v; want ErrNothingToCheck", filepath.Base(path), err)
		}
	}
	h, err := isocheck.ReadFile("examples/write-skew.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	v, err := isocheck.Check(ctx, h, level.SER)
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != verdict.Unknown || v.Reason == "" || v.Report == nil || v.Report.Satisfied != nil {
		t.Errorf("a check past its deadline says %v (%q), report %+v; want no verdict with the reason", v.Verdict, v.Reason, v.Report)
	}
}
