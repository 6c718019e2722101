package verdict

import (
	"testing"

	"github.com/isocheck/isocheck/level"
)

// Every name is listed once, described, and forbidden by its weakest
// level and every stronger one, never by a weaker one.
func TestForbiddenSetsFollowTheLevels(t *testing.T) {
	names := Anomalies()
	if len(names) != int(numAnomalies)-1 {
		t.Fatalf("Anomalies lists %d anomalies, the table has %d", len(names), numAnomalies-1)
	}
	seen := map[Anomaly]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s listed twice", n)
		}
		seen[n] = true
		if back, ok := ParseAnomaly(n.String()); !ok || back != n {
			t.Errorf("%s does not parse back to itself", n)
		}
		if n.Describe() == "" {
			t.Errorf("%s has no description", n)
		}
		for _, l := range level.All() {
			if got, want := Forbids(l, n), l.Implies(n.Weakest()); got != want {
				t.Errorf("Forbids(%v, %s) = %v, want %v", l, n, got, want)
			}
		}
	}
	if _, ok := ParseAnomaly("NoSuchThing"); ok || Forbids(level.SER, 0) {
		t.Error("an unknown name is known, or the zero Anomaly forbidden")
	}
}

// Each level's generic name is one it forbids and the next weaker level
// allows: the name says which level's promise was broken, and a report
// can give it when every weaker level is kept.
func TestGenericNamesAreTheLevelsOwn(t *testing.T) {
	tests := []struct {
		l    level.Level
		name Anomaly
		// allowedBy is a weaker level that allows the name, or 0.
		allowedBy level.Level
	}{
		{level.SSER, RealTimeViolation, level.SER},
		{level.SER, G2, level.SI},
		{level.SI, GNonadjacent, level.PC},
		{level.PC, PrefixViolation, level.CC},
		{level.CC, CausalityViolation, level.RA},
		{level.RA, FracturedRead, level.RC},
		{level.RC, NonMonotonicRead, 0},
	}
	for _, tt := range tests {
		if got := Generic(tt.l); got != tt.name {
			t.Errorf("Generic(%v) = %s, want %s", tt.l, got, tt.name)
		}
		if !Forbids(tt.l, tt.name) {
			t.Errorf("%v does not forbid its generic name %s", tt.l, tt.name)
		}
		if tt.allowedBy != 0 && Forbids(tt.allowedBy, tt.name) {
			t.Errorf("%v forbids %s, the generic name of the stronger %v", tt.allowedBy, tt.name, tt.l)
		}
		if tt.name.Weakest() != tt.l {
			t.Errorf("the weakest level that forbids %s, the generic name of %v, is %v", tt.name, tt.l, tt.name.Weakest())
		}
	}
}

// The cases the README's table is read for.
func TestForbids(t *testing.T) {
	tests := []struct {
		l    level.Level
		name Anomaly
		want bool
	}{
		{level.RA, LostUpdate, false},
		{level.PC, LostUpdate, false},
		{level.SI, LostUpdate, true},
		{level.SI, WriteSkew, false},
		{level.SER, WriteSkew, true},
		{level.RC, NonRepeatableRead, false},
		{level.RA, NonRepeatableRead, true},
		{level.RC, FracturedRead, false},
		{level.RC, AbortedRead, true},
		{level.CC, LongFork, false},
		{level.PC, LongFork, true},
		{level.SER, RealTimeViolation, false},
		{level.SSER, RealTimeViolation, true},
	}
	for _, tt := range tests {
		if got := Forbids(tt.l, tt.name); got != tt.want {
			t.Errorf("Forbids(%v, %s) = %v, want %v", tt.l, tt.name, got, tt.want)
		}
	}
}
