package apps

import (
	"context"
	"slices"
	"testing"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/level"
)

// levels are the levels explored, weakest first.
var levels = []level.Level{level.RC, level.RA, level.CC, level.SI, level.SER}

func explore1(t *testing.T, p *explore.Program, l level.Level) *explore.Result {
	t.Helper()
	res, err := explore.Explore(context.Background(), p, explore.Options{Level: l})
	if err != nil {
		t.Fatalf("%v: %v", l, err)
	}
	if !res.Complete {
		t.Fatalf("%v: exploration incomplete", l)
	}
	return res
}

func TestApps(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, a := range All() {
		for _, seed := range seeds {
			t.Run(a.Name+"/"+string(rune('0'+seed)), func(t *testing.T) {
				p := a.Program(2, 2, seed)
				prev := -1
				for _, l := range levels {
					res := explore1(t, p, l)
					if prev >= 0 && res.Histories > prev {
						t.Errorf("%v: %d histories, more than the %d of the weaker level", l, res.Histories, prev)
					}
					prev = res.Histories
					if l == level.SER && res.Failed > 0 {
						t.Errorf("SER: %d histories break an assertion, first:\n%s%q", res.Failed, res.First, res.First.Failures())
					}
					t.Logf("%v: %d end states, %d histories, %d failed", l, res.EndStates, res.Histories, res.Failed)
				}
			})
		}
	}
}

// TestSerial3x3 explores programs of the size of Bouajjani et al.
// (PLDI 2023), 3 sessions of 3 transactions, under SER: no history breaks
// an assertion.
func TestSerial3x3(t *testing.T) {
	if testing.Short() {
		t.Skip("takes seconds")
	}
	for _, a := range All() {
		for seed := int64(1); seed <= 5; seed++ {
			res := explore1(t, a.Program(3, 3, seed), level.SER)
			if res.Failed > 0 {
				t.Errorf("%s seed %d: SER: %d histories break an assertion, first:\n%s%q", a.Name, seed, res.Failed, res.First, res.First.Failures())
			}
		}
	}
}

func TestCoursewareRC(t *testing.T) {
	a, ok := Lookup("courseware")
	if !ok {
		t.Fatal("no courseware")
	}
	if testing.Short() {
		t.Skip("explores about five million histories under RC")
	}
	p := a.Program(3, 3, 1)
	ser := explore1(t, p, level.SER)
	if ser.Failed != 0 {
		t.Errorf("SER: %d histories break an assertion, first:\n%s", ser.Failed, ser.First)
	}
	res, err := explore.Explore(context.Background(), p, explore.Options{Level: level.RC, StopAtFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed == 0 {
		t.Fatal("RC: no history breaks an assertion")
	}
	t.Logf("RC: %q\n%s", res.First.Failures(), res.First)
}

func TestDeterministic(t *testing.T) {
	names := func(p *explore.Program) []string {
		var out []string
		for _, s := range p.Sessions {
			out = append(out, "session "+s.Name)
			for _, tx := range s.Txns {
				out = append(out, tx.Name)
			}
		}
		if p.Final != nil {
			out = append(out, "final "+p.Final.Name)
		}
		return out
	}
	for _, a := range All() {
		for seed := int64(1); seed <= 5; seed++ {
			p, q := a.Program(3, 3, seed), a.Program(3, 3, seed)
			if x, y := names(p), names(q); !slices.Equal(x, y) {
				t.Errorf("%s seed %d: two programs differ:\n%q\n%q", a.Name, seed, x, y)
			}
			if len(p.Sessions) != 3 {
				t.Errorf("%s seed %d: %d sessions, want 3", a.Name, seed, len(p.Sessions))
			}
			for _, s := range p.Sessions {
				if len(s.Txns) != 3 {
					t.Errorf("%s seed %d: session %s has %d transactions, want 3", a.Name, seed, s.Name, len(s.Txns))
				}
			}
		}
	}
}

func TestLookup(t *testing.T) {
	want := []string{"shopping-cart", "twitter", "courseware", "wikipedia", "tpcc"}
	all := All()
	if len(all) != len(want) {
		t.Fatalf("All returns %d apps, want %d", len(all), len(want))
	}
	for i, name := range want {
		a, ok := Lookup(name)
		if !ok || a.Name != name || all[i].Name != name || a.Doc == "" || a.Program == nil {
			t.Errorf("Lookup(%q) = %q, %v; All()[%d] = %q", name, a.Name, ok, i, all[i].Name)
		}
	}
	if _, ok := Lookup("tpc-c"); ok {
		t.Error(`Lookup("tpc-c") found an app`)
	}
}
