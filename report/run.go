package report

import (
	"fmt"
	"maps"
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/run"
)

// maxBuckets is the number of intervals the run's plot over time divides
// the run into, at most.
const maxBuckets = 60

// RunOf is the Run section of the page of a history `isocheck run`
// recorded: the run's summary sum, the faults injected, and the
// transactions committed and aborted per second over the run, counted
// from the end times h recorded (times in nanoseconds since the run
// began, as package run records them). h may be nil: then the plot is
// left out.
func RunOf(database, workload string, sum *run.Summary, h *history.History, faults []nemesis.Event) *Run {
	r := &Run{
		Database:     database,
		Workload:     workload,
		Planned:      sum.Planned,
		Committed:    sum.Committed,
		Aborted:      sum.Aborted,
		Unknown:      sum.Unknown,
		Duration:     sum.Duration,
		P50:          sum.P50,
		P95:          sum.P95,
		P99:          sum.P99,
		Max:          sum.Max,
		AbortReasons: maps.Clone(sum.AbortReasons),
	}
	var marks []draw.Mark
	for _, f := range faults {
		r.Faults = append(r.Faults, f.String())
		marks = append(marks, draw.Mark{X: f.At.Seconds(), Label: f.What()})
	}
	if h != nil {
		r.OverTime = overTime(h, marks)
	}
	return r
}

// FaultsOf is the Run section of the page of a history that records the
// events of a nemesis (history.Faults) without the run's summary: the
// faults, each at its time, and the transactions per second over the
// history's times, marked with them. It is nil for a history without
// faults.
func FaultsOf(h *history.History) *Run {
	r, marks := faultList(h.Faults)
	if r != nil {
		r.OverTime = overTime(h, marks)
	}
	return r
}

// RegisterFaults is the Run section of the page of a register history
// that records the events of a nemesis (format.Info.Faults): the faults,
// each at its time, which MarkFaults marks on its timelines. It is nil
// for a history without faults.
func RegisterFaults(faults []history.Fault) *Run {
	r, _ := faultList(faults)
	return r
}

// MarkFaults marks on tl the faults that have a time, on its clock.
func MarkFaults(tl *draw.Timeline, faults []history.Fault) {
	for _, f := range faults {
		if f.Time != history.NoTime {
			tl.Marks = append(tl.Marks, draw.TimelineMark{At: f.Time, Label: f.What})
		}
	}
}

// faultList lists faults as a Run's, each at its time in seconds, with
// the marks of those that have one; nil for none.
func faultList(faults []history.Fault) (*Run, []draw.Mark) {
	if len(faults) == 0 {
		return nil, nil
	}
	r := &Run{}
	var marks []draw.Mark
	for _, f := range faults {
		if f.Time == history.NoTime {
			r.Faults = append(r.Faults, f.What)
			continue
		}
		at := time.Duration(f.Time)
		r.Faults = append(r.Faults, fmt.Sprintf("%.3fs %s", at.Seconds(), f.What))
		marks = append(marks, draw.Mark{X: at.Seconds(), Label: f.What})
	}
	return r, marks
}

// overTime plots the transactions of h that ended in each interval of
// the run, committed and not, per second, with marks where faults
// happened; nil when h recorded no times.
func overTime(h *history.History, marks []draw.Mark) *draw.Chart {
	var last int64
	timed := 0
	for i := range h.Txns {
		if t := &h.Txns[i]; t.End != history.NoTime {
			last = max(last, t.End)
			timed++
		}
	}
	if timed == 0 || last <= 0 {
		return nil
	}
	n := min(maxBuckets, max(1, timed/10))
	width := float64(last) / float64(n) // nanoseconds a bucket
	committed := make([]float64, n)
	failed := make([]float64, n)
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.End == history.NoTime || t.End < 0 {
			continue
		}
		b := min(n-1, int(float64(t.End)/width))
		if t.Status == history.Committed {
			committed[b]++
		} else {
			failed[b]++
		}
	}
	perSecond := float64(time.Second) / width
	series := func(name string, counts []float64) draw.Series {
		s := draw.Series{Name: name, Points: make([]draw.Point, n)}
		for i, c := range counts {
			s.Points[i] = draw.Point{X: (float64(i) + 0.5) * width / float64(time.Second), Y: c * perSecond}
		}
		return s
	}
	c := &draw.Chart{
		Title:  "transactions per second over the run",
		XLabel: "seconds since the run began",
		YLabel: "per second",
		Series: []draw.Series{series("committed", committed), series("aborted or unknown", failed)},
	}
	c.Marks = marks
	return c
}
