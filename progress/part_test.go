package progress

import (
	"context"
	"errors"
	"testing"
)

// TestLimitEndsTheInnermostPart: a resource limit ends the innermost open
// part of a run and nothing else; with no part open, the caller is told
// to end the whole run.
func TestLimitEndsTheInnermostPart(t *testing.T) {
	tr := NewTracker()
	ctx := WithTracker(context.Background(), tr)
	cause := errors.New("over the limit")
	if tr.Limit(cause) {
		t.Fatal("Limit with no part open reported a part ended")
	}
	outer, endOuter := Part(ctx)
	inner, endInner := Part(outer)
	if !tr.Limit(cause) {
		t.Fatal("Limit with parts open reported none")
	}
	if context.Cause(inner) != cause || outer.Err() != nil || ctx.Err() != nil {
		t.Fatalf("inner %v, outer %v, run %v: want only the inner part ended", context.Cause(inner), outer.Err(), ctx.Err())
	}
	// While the inner part winds down, a second limit ends nothing more.
	tr.Limit(cause)
	if outer.Err() != nil {
		t.Fatal("a second limit ended the outer part while the inner was open")
	}
	endInner()
	tr.Limit(cause)
	if context.Cause(outer) != cause {
		t.Fatalf("outer part: %v, want ended by the limit", context.Cause(outer))
	}
	endOuter()
	if tr.Limit(cause) || ctx.Err() != nil {
		t.Fatal("the run's own context ended, or a part was left open")
	}
}
