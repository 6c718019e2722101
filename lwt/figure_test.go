package lwt_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

// TestTimelineExample: the stale read of examples/cas-stale-read.edn,
// read as the command line reads it, on one lane per process, with the
// read marked and explained.
func TestTimelineExample(t *testing.T) {
	f, err := os.Open("../examples/cas-stale-read.edn")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rops, _, err := format.ReadRegisterOps(context.Background(), f, "cas-stale-read.edn", format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	ops := lwt.FromRegisterOps(rops, lwt.FailAbsent)
	res, err := lwt.Check(context.Background(), ops, lwt.Nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated {
		t.Fatalf("verdict %v, want violated", res.Verdict)
	}
	tl := res.Timeline(ops)
	if tl.Title != "not linearizable" {
		t.Errorf("title %q", tl.Title)
	}
	var got []string
	for _, l := range tl.Lanes {
		for _, iv := range l.Ops {
			s := fmt.Sprintf("%s: %s [%d,%d]", l.Name, iv.Label, iv.Start, iv.End)
			if iv.Mark {
				s += " marked"
			}
			if iv.Related {
				s += " named by the reason"
			}
			got = append(got, s)
			if iv.Mark && iv.Label == "read → 1" && iv.Why != res.Violation.Reason {
				t.Errorf("the stale read's reason is %q, want %q", iv.Why, res.Violation.Reason)
			}
		}
	}
	want := []string{
		"process 0: write 1 [1,2]",
		"process 0: read → 1 [5,6] marked",
		"process 1: cas(1→2) ok [3,4] named by the reason",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(tl.Caption) != 1 || tl.Caption[0] != res.Violation.Reason {
		t.Errorf("caption %q, want the reason", tl.Caption)
	}
	checkIntervals(t, tl, ops)
}

// TestTimelineGenerated: in generated histories with a planted bug, the
// operation that cannot be linearized is on the timeline, marked, on its
// process's lane; a long history is cut to a window around it.
func TestTimelineGenerated(t *testing.T) {
	for _, inj := range []lwt.Injection{lwt.StaleRead, lwt.LostCAS, lwt.WrongFailedCAS} {
		for _, n := range []int{30, 400} {
			violated := 0
			for seed := uint64(1); seed <= 5; seed++ {
				ops, _ := lwt.Generate(lwt.GenConfig{Processes: 5, Ops: n, Keys: 3, Seed: seed,
					ReadFrac: 0.3, WriteFrac: 0.1, CASHit: 0.7, InfoFrac: 0.1, Inject: inj})
				res, err := lwt.Check(context.Background(), ops, lwt.Nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != verdict.Violated {
					continue
				}
				violated++
				name := fmt.Sprintf("%v/%d/seed %d", inj, n, seed)
				tl := res.Timeline(ops)
				if want := "not linearizable on key"; !strings.HasPrefix(tl.Title, want) {
					t.Errorf("%s: title %q", name, tl.Title)
				}
				v := ops[res.Violation.Op]
				found := false
				shown := 0
				for _, l := range tl.Lanes {
					for _, iv := range l.Ops {
						shown++
						if iv.Mark && iv.Why == res.Violation.Reason {
							found = true
							if l.Name != fmt.Sprintf("process %d", v.Process) {
								t.Errorf("%s: the violating operation is on lane %q, want process %d", name, l.Name, v.Process)
							}
						}
					}
				}
				if !found {
					t.Errorf("%s: the violating operation %v is not marked", name, v)
				}
				if n > 60 && (shown >= len(ops) || len(tl.Notes) == 0 || !strings.Contains(tl.Notes[0], fmt.Sprintf("%d of %d operations left out", len(ops)-shown, len(ops)))) {
					t.Errorf("%s: %d of %d operations shown, notes %q", name, shown, len(ops), tl.Notes)
				}
				checkIntervals(t, tl, ops)
			}
			if violated == 0 {
				t.Errorf("%v/%d: no seed planted a violation", inj, n)
			}
		}
	}
}

// TestTimelineOps: bars of operations that never returned or were never
// invoked stay within what is shown; labels say what each did.
func TestTimelineOps(t *testing.T) {
	ops := []lwt.Op{
		{Process: 0, Kind: register.Write, Value: 1, Call: 10, Return: 20},
		{Process: 1, Kind: register.CAS, Old: 1, New: 2, Call: 15, Return: lwt.Never, Outcome: register.Info},
		{Process: 2, Kind: register.Read, Value: lwt.Nil, Call: register.NoCall, Return: 30},
		{Process: 0, Kind: register.CAS, Key: "y", Old: 5, New: 6, Call: 21, Return: 25, Outcome: register.Fail},
	}
	tl := lwt.Result{Outcome: verdict.Outcome{Verdict: verdict.Satisfied}}.Timeline(ops)
	if tl.Title != "linearizable" {
		t.Errorf("title %q", tl.Title)
	}
	want := map[string]draw.Interval{
		"write 1":              {Start: 10, End: 20},
		`cas(1→2) info`:        {Start: 15, End: 30, Open: true},
		"read → nil":           {Start: 10, End: 30},
		`cas(5→6) fail on "y"`: {Start: 21, End: 25},
	}
	n := 0
	for _, l := range tl.Lanes {
		for _, iv := range l.Ops {
			n++
			w, ok := want[iv.Label]
			if !ok {
				t.Errorf("unexpected label %q", iv.Label)
				continue
			}
			if iv.Start != w.Start || iv.End != w.End || iv.Open != w.Open || iv.Mark {
				t.Errorf("%s: %+v, want %+v", iv.Label, iv, w)
			}
		}
	}
	if n != len(ops) || len(tl.Lanes) != 3 {
		t.Errorf("%d operations on %d lanes, want %d on 3", n, len(tl.Lanes), len(ops))
	}
	checkIntervals(t, tl, ops)
}

// checkIntervals checks that every bar ends after it starts and that the
// lanes are processes of ops, each once.
func checkIntervals(t *testing.T, tl *draw.Timeline, ops []lwt.Op) {
	t.Helper()
	procs := map[string]bool{}
	for _, o := range ops {
		procs[fmt.Sprintf("process %d", o.Process)] = true
	}
	seen := map[string]bool{}
	for _, l := range tl.Lanes {
		if !procs[l.Name] || seen[l.Name] {
			t.Errorf("lane %q is not a process, or is there twice", l.Name)
		}
		seen[l.Name] = true
		for _, iv := range l.Ops {
			if iv.End < iv.Start {
				t.Errorf("%s: %s ends at %d before it starts at %d", l.Name, iv.Label, iv.End, iv.Start)
			}
		}
	}
}
