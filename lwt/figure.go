package lwt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/register"
	"github.com/isocheck/isocheck/verdict"
)

// Bounds of what a Timeline shows of a long history.
const (
	// maxTimelineOps is the most operations a Timeline shows whole.
	maxTimelineOps = 60
	// opsBefore is how many operations of the key that returned before
	// the violation's window a Timeline of a long history keeps.
	opsBefore = 5
)

// Timeline draws ops, the history r is the result of, as Porcupine and
// Jepsen do: a lane per process and a bar per operation from its call to
// its return (open when it never returned). The operation that cannot be
// linearized and those its reason names are marked, the first with the
// reason. A history of more than 60 operations is cut to the operations
// of the violation's key that overlap the span of the marked ones, with
// a few before it; the notes say how many were left out.
func (r Result) Timeline(ops []Op) *draw.Timeline {
	tl := &draw.Timeline{Title: r.timelineTitle()}
	v := r.Violation
	marked := map[int]bool{} // true: the violation's operation; false: one its reason names
	if v != nil && v.Op >= 0 && v.Op < len(ops) {
		tl.Caption = []string{v.Reason}
		for _, j := range v.Related {
			if j >= 0 && j < len(ops) {
				marked[j] = false
			}
		}
		marked[v.Op] = true
	} else if r.Verdict == verdict.Unknown && r.Reason != "" {
		tl.Caption = []string{r.Reason}
	}
	shown := make([]int, len(ops))
	for i := range shown {
		shown[i] = i
	}
	if len(ops) > maxTimelineOps {
		if len(marked) > 0 {
			shown = window(ops, v.Key, marked)
			what := "the register's"
			if v.Key != "" {
				what = "those on key " + edn.Quote(v.Key)
			}
			tl.Notes = append(tl.Notes, fmt.Sprintf("%d of %d operations left out: shown are %s around the violation", len(ops)-len(shown), len(ops), what))
		} else {
			slices.SortStableFunc(shown, func(a, b int) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
			shown = shown[:maxTimelineOps]
			slices.Sort(shown)
			tl.Notes = append(tl.Notes, fmt.Sprintf("%d of %d operations left out: shown are the first %d invoked", len(ops)-len(shown), len(ops), maxTimelineOps))
		}
	}
	tl.Lanes = lanes(ops, shown, marked, v)
	return tl
}

// timelineTitle is the heading of r's Timeline.
func (r Result) timelineTitle() string {
	switch {
	case r.Verdict == verdict.Satisfied:
		return "linearizable"
	case r.Verdict == verdict.Unknown:
		return "linearizability: no verdict"
	case r.Violation == nil || r.Violation.Key == "":
		return "not linearizable"
	}
	return "not linearizable on key " + edn.Quote(r.Violation.Key)
}

// window returns the indices of the operations of key that overlap the
// span of the marked operations (the violation's and those it names), the opsBefore operations of key that
// returned last before it, and the marked ones, in increasing order.
func window(ops []Op, key string, marked map[int]bool) []int {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range marked {
		o := &ops[i]
		if o.Call != register.NoCall {
			lo, hi = min(lo, o.Call), max(hi, o.Call)
		}
		if r := ret(o); r != Never {
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	keep := map[int]bool{}
	var before []int
	for i := range ops {
		o := &ops[i]
		switch {
		case o.Key != key:
		case marked[i]:
			keep[i] = true
		case o.Call <= hi && ret(o) >= lo:
			keep[i] = true
		case ret(o) < lo:
			before = append(before, i)
		}
	}
	sort.SliceStable(before, func(a, b int) bool { return ops[before[a]].Return > ops[before[b]].Return })
	for _, i := range before[:min(opsBefore, len(before))] {
		keep[i] = true
	}
	var shown []int
	for i := range keep {
		shown = append(shown, i)
	}
	slices.Sort(shown)
	return shown
}

// lanes puts the operations shown on one lane per process, in increasing
// order of process and, on each, of call.
func lanes(ops []Op, shown []int, marked map[int]bool, v *Violation) []draw.TimelineLane {
	// Operations without an invocation start, and those that never
	// returned end, at the edges of what is shown.
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	keys := map[string]bool{}
	for _, i := range shown {
		o := &ops[i]
		keys[o.Key] = true
		if o.Call != register.NoCall {
			first, last = min(first, o.Call), max(last, o.Call)
		}
		if r := ret(o); r != Never {
			first, last = min(first, r), max(last, r)
		}
	}
	if first > last {
		first, last = 0, 0 // no time known
	}
	byProcess := map[int][]draw.Interval{}
	for _, i := range shown {
		o := &ops[i]
		mark, named := marked[i]
		iv := draw.Interval{Start: o.Call, End: ret(o), Label: o.label(len(keys) > 1), Why: o.String(), Mark: mark, Related: named && !mark}
		if o.Call == register.NoCall {
			iv.Start = min(first, iv.End)
		}
		if iv.End == Never {
			iv.Open = true
			iv.End = max(last, iv.Start)
		}
		if v != nil && i == v.Op {
			iv.Why = v.Reason
		}
		byProcess[o.Process] = append(byProcess[o.Process], iv)
	}
	var procs []int
	for p := range byProcess {
		procs = append(procs, p)
	}
	slices.Sort(procs)
	var out []draw.TimelineLane
	for _, p := range procs {
		ivs := byProcess[p]
		slices.SortStableFunc(ivs, func(a, b draw.Interval) int { return cmp.Compare(a.Start, b.Start) })
		name := fmt.Sprintf("process %d", p)
		if p < 0 {
			name = "process unknown"
		}
		out = append(out, draw.TimelineLane{Name: name, Ops: ivs})
	}
	return out
}

// label is what a Timeline writes on o's bar: "cas(1→2) ok", "read → 3",
// "write 4", with the key when withKey.
func (o Op) label(withKey bool) string {
	var s string
	switch o.Kind {
	case register.Read:
		s = "read"
		if o.Outcome == register.OK {
			s += " → " + FormatValue(o.Value)
		} else {
			s += " " + o.Outcome.String()
		}
	case register.Write:
		s = "write " + FormatValue(o.Value)
		if o.Outcome != register.OK {
			s += " " + o.Outcome.String()
		}
	case register.CAS:
		s = "cas(" + FormatValue(o.Old) + "→" + FormatValue(o.New) + ") " + o.Outcome.String()
	default:
		s = o.Kind.String() + " " + o.Outcome.String()
	}
	if withKey && o.Key != "" {
		s += " on " + edn.Quote(o.Key)
	}
	return s
}
