package harness

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sqlPoint is the clients of one point of a SQL experiment: same
// application, axis value, variant and level (or mix).
type sqlPoint struct {
	Row        // the first client's, for the labels
	runs []Row // every client's
}

// sqlPoints gathers the isocheck rows of a SQL experiment by point, in the
// order they first appear.
func sqlPoints(rows []Row) []sqlPoint {
	var out []sqlPoint
	index := make(map[string]int)
	for _, r := range rows {
		if r.Checker != "isocheck" {
			continue
		}
		k := strings.Join([]string{r.Case, r.Axis, r.X, r.Variant, r.Level}, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, sqlPoint{Row: r})
		}
		out[i].runs = append(out[i].runs, r)
	}
	return out
}

// finished are the walls of the runs that gave a verdict.
func (p sqlPoint) finished() []time.Duration {
	var ws []time.Duration
	for _, r := range p.runs {
		if r.Status == StatusSatisfied || r.Status == StatusViolated {
			ws = append(ws, r.Wall)
		}
	}
	return ws
}

// count is the number of runs of status s.
func (p sqlPoint) count(s string) int {
	n := 0
	for _, r := range p.runs {
		if r.Status == s {
			n++
		}
	}
	return n
}

// mean is the mean wall time of the runs that gave a verdict, as
// Bouajjani et al. (CAV 2025) average (timed-out runs left out), and
// whether there were any.
func (p sqlPoint) mean() (time.Duration, bool) {
	ws := p.finished()
	if len(ws) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, w := range ws {
		sum += w
	}
	return sum / time.Duration(len(ws)), true
}

// cell is the point in a table: its mean time, and what did not finish.
func (p sqlPoint) cell() string {
	var s string
	if m, ok := p.mean(); ok {
		s = seconds(m)
	} else {
		s = "–"
	}
	var notes []string
	for _, st := range []string{StatusTimeout, StatusNoVerdict, StatusError, StatusSkipped} {
		if n := p.count(st); n > 0 {
			notes = append(notes, fmt.Sprintf("%d/%d %s", n, len(p.runs), st))
		}
	}
	if n := p.count(StatusViolated); n > 0 {
		notes = append(notes, fmt.Sprintf("%d violated", n))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// plotSQL draws, per application, the mean time of each isolation
// configuration against the axis (sessions or transactions per session);
// a point some client of which timed out is circled in red, one every
// client of which timed out drawn at the timeout.
func plotSQL(rows []Row, m Machine, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	exp := rows[0].Experiment
	var files []string
	pts := sqlPoints(rows)
	for _, app := range appsOf(pts) {
		var series []string
		lines := make(map[string]plotter.XYs)
		var marks plotter.XYs
		axis := ""
		for _, p := range pts {
			if p.Case != app {
				continue
			}
			axis = p.Axis
			if !slices.Contains(series, p.Level) {
				series = append(series, p.Level)
			}
			xy, timedOut, ok := p.xy()
			if !ok {
				continue
			}
			lines[p.Level] = append(lines[p.Level], xy)
			if timedOut {
				marks = append(marks, xy)
			}
		}
		what := "sessions (10 transactions each)"
		fig := "Figure 6"
		if axis != "sessions" {
			what, fig = "transactions per session (3 sessions)", "Figure 7"
		}
		p := newPlot(fmt.Sprintf("%s (Bouajjani et al., CAV 2025)\n%s, checking each transaction at its level as %s grow", fig, appTitle(app), strings.TrimSuffix(what, " (3 sessions)")), m)
		p.X.Label.Text = what
		p.Y.Label.Text = "wall time (s), mean of the clients that finished"
		if err := linearLines(p, series, lines, marks); err != nil {
			return files, fmt.Errorf("plot %s: %w", exp, err)
		}
		fs, err := save(p, dir, exp+"-"+app, 6*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// plotSQLNaive draws the mean time of isocheck and of the naive baseline
// against transactions per session, per application.
func plotSQLNaive(rows []Row, m Machine, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	pts := sqlPoints(rows)
	var series []string
	lines := make(map[string]plotter.XYs)
	var marks plotter.XYs
	for _, p := range pts {
		s := appTitle(p.Case) + " " + p.Variant
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		xy, timedOut, ok := p.xy()
		if !ok {
			continue
		}
		lines[s] = append(lines[s], xy)
		if timedOut {
			marks = append(marks, xy)
		}
	}
	p := newPlot("The naive baseline of Bouajjani et al. (CAV 2025)\nhistories recorded at RC checked at SER (3 sessions)", m)
	p.X.Label.Text = "transactions per session"
	p.Y.Label.Text = "wall time (s), mean of the clients that finished"
	if err := linearLines(p, series, lines, marks); err != nil {
		return nil, fmt.Errorf("plot sql-naive: %w", err)
	}
	return save(p, dir, "sql-naive", 6*vg.Inch)
}

// xy is the point's place in a plot: its mean time, or the longest
// timed-out run when none finished; timedOut when some run timed out (or
// stopped without a verdict); ok false when there is nothing to draw.
func (p sqlPoint) xy() (plotter.XY, bool, bool) {
	x, err := strconv.ParseFloat(p.X, 64)
	if err != nil {
		return plotter.XY{}, false, false
	}
	timedOut := p.count(StatusTimeout)+p.count(StatusNoVerdict) > 0
	if m, ok := p.mean(); ok {
		return plotter.XY{X: x, Y: max(m.Seconds(), 1e-3)}, timedOut, true
	}
	if !timedOut {
		return plotter.XY{}, false, false
	}
	var longest time.Duration
	for _, r := range p.runs {
		if r.Status == StatusTimeout || r.Status == StatusNoVerdict {
			longest = max(longest, r.Wall)
		}
	}
	return plotter.XY{X: x, Y: max(longest.Seconds(), 1e-3)}, true, true
}

// linearLines draws one line per series on a linear X axis and a log Y
// axis, and red rings around the marked points.
func linearLines(p *plot.Plot, series []string, pts map[string]plotter.XYs, marks plotter.XYs) error {
	// A log Y axis only where the times span a decade: its ticks are at
	// powers of ten, so a narrower range would have none.
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for _, pt := range pts[s] {
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
	}
	if lo > 0 && hi >= 10*lo {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if err := addSeries(p, series, pts); err != nil {
		return err
	}
	if err := ringMarks(p, marks, "some client timed out"); err != nil {
		return err
	}
	p.Add(plotter.NewGrid())
	p.Legend.Left = true
	return nil
}

// ringMarks draws red rings around marks, with legend entry label.
func ringMarks(p *plot.Plot, marks plotter.XYs, label string) error {
	if len(marks) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return err
	}
	sc.Shape = draw.RingGlyph{}
	sc.Color = color.RGBA{R: 220, A: 255}
	sc.Radius = vg.Points(7)
	p.Add(sc)
	p.Legend.Add(label, sc)
	return nil
}

func appsOf(pts []sqlPoint) []string {
	var apps []string
	for _, p := range pts {
		if !slices.Contains(apps, p.Case) {
			apps = append(apps, p.Case)
		}
	}
	return apps
}

func appTitle(app string) string {
	switch app {
	case "tpcc":
		return "TPC-C"
	case "twitter":
		return "Twitter"
	case "wikipedia":
		return "Wikipedia"
	case "courseware":
		return "Courseware"
	case "shopping-cart":
		return "Shopping cart"
	}
	return app
}

// sqlDBs are the databases rows were recorded on, as the summary says.
func sqlDBs(rows []Row) string {
	var dbs []string
	for _, r := range rows {
		if r.DB != "" && !slices.Contains(dbs, r.DB) {
			dbs = append(dbs, r.DB)
		}
	}
	for i, d := range dbs {
		switch d {
		case "sqlite":
			dbs[i] = "SQLite (embedded)"
		case "postgres":
			dbs[i] = "PostgreSQL"
		}
	}
	if len(dbs) == 0 {
		return "an unknown database"
	}
	return strings.Join(dbs, " and ")
}

func clientsOf(pts []sqlPoint) string {
	lo, hi := math.MaxInt, 0
	for _, p := range pts {
		lo, hi = min(lo, len(p.runs)), max(hi, len(p.runs))
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// sqlGridSummary is the table of sql-sessions or sql-txns: per
// application and isolation configuration, the mean time at each point.
func sqlGridSummary(b *strings.Builder, rows []Row, title string) {
	pts := sqlPoints(rows)
	if len(pts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s\n\n", title)
	fmt.Fprintf(b, "Histories of BenchBase's TPC-C and Twitter recorded by `sqlrun` on %s, %s client(s) (seeds) a point, each checked once by `isocheck check --json` at the levels its transactions recorded; the mean wall time of the clients that finished (as Bouajjani et al. average), and how many did not.\n\n", sqlDBs(rows), clientsOf(pts))
	var xs []string
	for _, p := range pts {
		if !slices.Contains(xs, p.X) {
			xs = append(xs, p.X)
		}
	}
	slices.SortStableFunc(xs, func(a, b string) int { return atoi(a) - atoi(b) })
	fmt.Fprintf(b, "| application | levels | %s = %s |\n|---|---|%s\n", pts[0].Axis, strings.Join(xs, " | "), strings.Repeat("---:|", len(xs)))
	cell := make(map[[3]string]string)
	var lines [][2]string
	for _, p := range pts {
		l := [2]string{p.Case, p.Level}
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
		cell[[3]string{p.Case, p.Level, p.X}] = p.cell()
	}
	for _, l := range lines {
		fmt.Fprintf(b, "| %s | %s |", appTitle(l[0]), strings.ToUpper(l[1]))
		for _, x := range xs {
			c := cell[[3]string{l[0], l[1], x}]
			if c == "" {
				c = "–"
			}
			fmt.Fprintf(b, " %s |", c)
		}
		b.WriteString("\n")
	}
	n, timeouts := 0, 0
	var slowest time.Duration
	for _, r := range rows {
		if r.Checker != "isocheck" {
			continue
		}
		n++
		switch r.Status {
		case StatusTimeout, StatusNoVerdict, StatusSkipped:
			timeouts++
		case StatusSatisfied, StatusViolated:
			slowest = max(slowest, r.Wall)
		}
	}
	fmt.Fprintf(b, "\n%d histories, %d without a verdict in time (timeout, no-verdict or skipped); the slowest check that finished took %s.\n", n, timeouts, seconds(slowest))
}

// naiveStats are the figures of one checker of sql-naive.
type naiveStats struct {
	n, timeouts, violated int
	mean, median, max     time.Duration // of the runs that finished
}

func naiveFigures(rows []Row) naiveStats {
	var s naiveStats
	var ws []time.Duration
	for _, r := range rows {
		s.n++
		switch r.Status {
		case StatusSatisfied, StatusViolated:
			ws = append(ws, r.Wall)
			if r.Status == StatusViolated {
				s.violated++
			}
		case StatusTimeout, StatusNoVerdict, StatusSkipped:
			s.timeouts++
		}
	}
	if len(ws) > 0 {
		slices.Sort(ws)
		var sum time.Duration
		for _, w := range ws {
			sum += w
		}
		s.mean, s.median, s.max = sum/time.Duration(len(ws)), medianDuration(ws), ws[len(ws)-1]
	}
	return s
}

func medianDuration(ws []time.Duration) time.Duration {
	if len(ws) == 0 {
		return 0
	}
	if len(ws)%2 == 1 {
		return ws[len(ws)/2]
	}
	return (ws[len(ws)/2-1] + ws[len(ws)/2]) / 2
}

func (s naiveStats) times() string {
	if s.n == s.timeouts {
		return "– | – | –"
	}
	return fmt.Sprintf("%s | %s | %s", seconds(s.mean), seconds(s.median), seconds(s.max))
}

// naiveRatios are, per history both checkers ran on, the naive
// baseline's wall time over isocheck's: a run that timed out counts at
// its wall time (the limit), so a ratio with a timed-out naive run is a
// lower bound, one with a timed-out isocheck run an upper bound. Histories
// neither finished are left out. bounded counts the ratios of a
// timed-out naive run.
func naiveRatios(rows []Row) (ratios []float64, bounded int) {
	return naiveRatiosOf(rows, func(r *Row) time.Duration { return r.Wall })
}

// checkTime is isocheck's own time of the check (start and parse left
// out) when it finished, else the run's wall time.
func checkTime(r *Row) time.Duration {
	if (r.Status == StatusSatisfied || r.Status == StatusViolated) && r.Stats.Elapsed > 0 {
		return r.Stats.Elapsed
	}
	return r.Wall
}

// naiveRatiosOf is naiveRatios of the time t.
func naiveRatiosOf(rows []Row, t func(*Row) time.Duration) (ratios []float64, bounded int) {
	type pair struct{ def, naive *Row }
	byHistory := make(map[string]*pair)
	var order []string
	for i := range rows {
		r := &rows[i]
		if r.Checker != "isocheck" {
			continue
		}
		k := fmt.Sprintf("%s\x00%s\x00%d", r.Case, r.X, r.Seed)
		p, ok := byHistory[k]
		if !ok {
			p = &pair{}
			byHistory[k] = p
			order = append(order, k)
		}
		if r.Variant == "naive" {
			p.naive = r
		} else {
			p.def = r
		}
	}
	stopped := func(r *Row) bool { return r.Status == StatusTimeout || r.Status == StatusNoVerdict }
	done := func(r *Row) bool { return r.Status == StatusSatisfied || r.Status == StatusViolated }
	for _, k := range order {
		p := byHistory[k]
		if p.def == nil || p.naive == nil {
			continue
		}
		if !(done(p.def) || stopped(p.def)) || !(done(p.naive) || stopped(p.naive)) || stopped(p.def) && stopped(p.naive) {
			continue
		}
		ratios = append(ratios, t(p.naive).Seconds()/max(t(p.def).Seconds(), 1e-6))
		if stopped(p.naive) {
			bounded++
		}
	}
	return ratios, bounded
}

func medianFloat(fs []float64) float64 {
	if len(fs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(fs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// sqlNaiveSummary is the comparison with the naive baseline, and the
// issue's targets: no timeouts on the paper's sizes, and at least 10×
// faster than the naive baseline on the median.
func sqlNaiveSummary(b *strings.Builder, rows []Row, grids []Row) {
	pts := sqlPoints(rows)
	if len(pts) == 0 {
		return
	}
	var sizes []string
	for _, p := range pts {
		if !slices.Contains(sizes, p.X) {
			sizes = append(sizes, p.X)
		}
	}
	b.WriteString("\n### SQL histories against the naive baseline (Bouajjani et al., CAV 2025, §6): recorded at RC, checked at SER\n\n")
	fmt.Fprintf(b, "Histories recorded by `sqlrun` on %s with every transaction at RC, 3 sessions of %s transactions, %s client(s) a size; each checked once with `isocheck check --json --level ser` (default) and with `--naive` as well (the paper's baseline: every witness and every commit order). Times are of the runs that finished (as the paper computes them).\n\n",
		sqlDBs(rows), strings.Join(sizes, ", "), clientsOf(pts))
	b.WriteString("| application | checker | histories | timeouts | violated | mean | median | max |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	var all [2][]Row
	for _, app := range appsOf(pts) {
		for i, v := range []string{"default", "naive"} {
			var rs []Row
			for _, r := range rows {
				if r.Checker == "isocheck" && r.Case == app && r.Variant == v {
					rs = append(rs, r)
				}
			}
			all[i] = append(all[i], rs...)
			s := naiveFigures(rs)
			fmt.Fprintf(b, "| %s | %s | %d | %s | %d | %s |\n", appTitle(app), v, s.n, pct(s.timeouts, s.n), s.violated, s.times())
		}
	}
	for i, v := range []string{"default", "naive"} {
		s := naiveFigures(all[i])
		fmt.Fprintf(b, "| all | %s | %d | %s | %d | %s |\n", v, s.n, pct(s.timeouts, s.n), s.violated, s.times())
	}
	b.WriteString("\n")
	ratios, bounded := naiveRatios(rows)
	med := medianFloat(ratios)
	if len(ratios) == 0 {
		b.WriteString("No history that either checker finished: no speedup to report.\n")
	} else {
		fmt.Fprintf(b, "Median speedup (the naive baseline's time over isocheck's, per history): **%.1f×** over %d histories", med, len(ratios))
		var per []string
		for _, app := range appsOf(pts) {
			var rs []Row
			for _, r := range rows {
				if r.Case == app {
					rs = append(rs, r)
				}
			}
			if rr, _ := naiveRatios(rs); len(rr) > 0 {
				per = append(per, fmt.Sprintf("%s %.1f×", appTitle(app), medianFloat(rr)))
			}
		}
		fmt.Fprintf(b, " (%s)", strings.Join(per, ", "))
		if bounded > 0 {
			fmt.Fprintf(b, "; %d of them with a naive run that timed out, counted at the limit, so the ratio is a lower bound", bounded)
		}
		b.WriteString(". The wall times include starting the process and parsing the history, the same for both;")
		if cr, _ := naiveRatiosOf(rows, checkTime); len(cr) > 0 {
			fmt.Fprintf(b, " on the check alone (isocheck's own Elapsed, of the runs that finished), the median ratio is %.1f×.\n", medianFloat(cr))
		} else {
			b.WriteString(" isocheck's own time of the check is not in these rows.\n")
		}
	}

	// The targets.
	var defaults []Row
	defaults = append(defaults, all[0]...)
	for _, r := range grids {
		if r.Checker == "isocheck" && r.Variant == "default" {
			defaults = append(defaults, r)
		}
	}
	d := naiveFigures(defaults)
	b.WriteString("\nTargets:\n\n")
	verdict := "met"
	if d.timeouts > 0 {
		verdict = "**not met**"
	}
	fmt.Fprintf(b, "- no timeouts: %s here, %d of %d SQL histories of sql-sessions, sql-txns and sql-naive without a verdict within the limit, isocheck's default checker", verdict, d.timeouts, d.n)
	if d.n > 0 && d.max > 0 {
		fmt.Fprintf(b, " (slowest finished check %s)", seconds(d.max))
	}
	b.WriteString(". The quick scale is smaller than the paper's sizes (`make bench-full` runs them).\n")
	verdict = "met"
	if len(ratios) == 0 || med < 10 {
		verdict = "**not met**"
	}
	if len(ratios) == 0 {
		fmt.Fprintf(b, "- at least 10× faster than the naive baseline on the median: %s (no ratio).\n", verdict)
	} else {
		fmt.Fprintf(b, "- at least 10× faster than the naive baseline on the median: %s (%.1f×).\n", verdict, med)
	}
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(of))
}
