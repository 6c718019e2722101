package interpret_test

import (
	"slices"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// TestEveryWeakCycles checks that Every lists the cycles of every shape
// a weak level forbids, not only the main one: a fractured read, a
// session guarantee violation and a causality violation, each with an
// example that violates the weakest level forbidding it.
func TestEveryWeakCycles(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "w", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "fractured", "ops": [["r", "x", 1], ["r", "y", null]]}
{"session": 3, "id": "mine", "ops": [["w", "z", 1]]}
{"session": 3, "id": "forgot", "ops": [["r", "z", null]]}
{"session": 4, "id": "v", "ops": [["w", "u", 1]]}
{"session": 5, "id": "c", "ops": [["r", "u", 1], ["w", "v", 1]]}
{"session": 6, "id": "d", "ops": [["r", "v", 1], ["r", "u", null]]}`)
	ra := []verdict.Anomaly{verdict.FracturedRead, verdict.SessionGuaranteeViolation}
	for _, tc := range []struct {
		l    level.Level
		want []verdict.Anomaly
	}{
		{level.RC, []verdict.Anomaly{verdict.NonMonotonicRead}},
		{level.RA, ra},
		{level.CC, append(slices.Clone(ra), verdict.CausalityViolation)},
		{level.PC, append(slices.Clone(ra), verdict.CausalityViolation)},
	} {
		t.Run(tc.l.String(), func(t *testing.T) {
			_, _, found := every(t, h, tc.l)
			var got []verdict.Anomaly
			for _, f := range found {
				got = append(got, f.Name)
				if why, ok := exampleViolates(t, h, f.Name.Weakest(), f); !ok {
					t.Errorf("%s: the example %v does not violate %v: %s", f.Name, f.Example, f.Name.Weakest(), why)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("lists %v, want %v", got, want)
			}
		})
	}
}
