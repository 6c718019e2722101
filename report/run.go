package report

import (
	"fmt"
	"maps"
	"strings"
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
	for _, f := range faults {
		r.Faults = append(r.Faults, f.String())
	}
	if h != nil {
		r.OverTime = overTime(h, faults)
	}
	return r
}

// overTime plots the transactions of h that ended in each interval of
// the run, committed and not, per second; nil when h recorded no times.
func overTime(h *history.History, faults []nemesis.Event) *draw.Chart {
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
	for _, f := range faults {
		label := fmt.Sprintf("node %d %s", f.Node, f.Action)
		if f.Node < 0 {
			// A partition or its healing: the event's own words, without
			// its time, which the chart shows.
			_, label, _ = strings.Cut(f.String(), " ")
		}
		c.Marks = append(c.Marks, draw.Mark{X: f.At.Seconds(), Label: label})
	}
	return c
}
