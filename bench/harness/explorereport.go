package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// exploreVariants are the configurations of rows, in fig14Variants's
// order and then in the order they first appear.
func exploreVariants(rows []Row) []string {
	var vs []string
	for _, v := range fig14Variants {
		if slices.ContainsFunc(rows, func(r Row) bool { return r.Variant == v.Name }) {
			vs = append(vs, v.Name)
		}
	}
	for _, r := range rows {
		if !slices.Contains(vs, r.Variant) {
			vs = append(vs, r.Variant)
		}
	}
	return vs
}

// cactus is a cactus plot's line: the values of the solved runs sorted
// ascending, the i-th at x = i.
func cactus(vals []float64) plotter.XYs {
	slices.Sort(vals)
	pts := make(plotter.XYs, len(vals))
	for i, v := range vals {
		pts[i] = plotter.XY{X: float64(i + 1), Y: v}
	}
	return pts
}

// logYIfSpread puts p's Y axis on a log scale when the positive values of
// pts span a decade or more.
func logYIfSpread(p *plot.Plot, pts map[string]plotter.XYs) {
	lo, hi := math.Inf(1), 0.0
	for _, xys := range pts {
		for _, pt := range xys {
			if pt.Y <= 0 {
				return
			}
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
	}
	if lo > 0 && hi >= 10*lo {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
}

// plotExploreFig14 draws Figure 14's three cactus plots: per
// configuration, the time, the peak memory and the end states of the
// programs it explored completely, each sorted ascending.
func plotExploreFig14(rows []Row, m Machine, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	series := exploreVariants(rows)
	n := len(programs(rows))
	var files []string
	for _, v := range []struct {
		name, title, label string
		value              func(Row) float64
	}{
		{"explore-fig14-time", "(a) running time", "time of the exploration (s)", func(r Row) float64 { return max(exploreTime(r).Seconds(), 1e-4) }},
		{"explore-fig14-memory", "(b) peak memory", "peak RSS (MiB)", func(r Row) float64 { return float64(r.MaxRSS) / (1 << 20) }},
		{"explore-fig14-end-states", "(c) end states", "end states", func(r Row) float64 { return float64(max(r.Stats.EndStates, 1)) }},
	} {
		pts := make(map[string]plotter.XYs)
		for _, s := range series {
			var vals []float64
			for _, r := range rows {
				if r.Variant == s && solved(r) {
					vals = append(vals, v.value(r))
				}
			}
			pts[s] = cactus(vals)
		}
		p := newPlot(fmt.Sprintf("Figure 14%s (Bouajjani et al., PLDI 2023)\ncactus plot of %d programs, timeouts left out", v.title, n), m)
		p.X.Label.Text = "programs explored completely"
		p.Y.Label.Text = v.label
		logYIfSpread(p, pts)
		if err := addVariants(p, series, pts); err != nil {
			return files, fmt.Errorf("plot explore-fig14: %w", err)
		}
		p.Add(plotter.NewGrid())
		p.Legend.Left = true
		p.X.Min = 0
		legendRoom(p, 0.5)
		fs, err := saveSized(p, dir, v.name, 7*vg.Inch, 5*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// addVariants is addSeries with the lines of the baselines (RA+CC,
// RC+CC, true+CC, DFS(CC)) dashed, apart from explore-ce's of the same
// colour.
func addVariants(p *plot.Plot, series []string, pts map[string]plotter.XYs) error {
	return addStyledSeries(p, series, pts, func(s string, l *plotter.Line) {
		if isBaseline(s) {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
	})
}

// legendRoom raises the top of p's Y axis so that the data take the
// bottom share of it, leaving the top for the legend.
func legendRoom(p *plot.Plot, share float64) {
	lo, hi := p.Y.Min, p.Y.Max
	if hi <= lo {
		return
	}
	if _, ok := p.Y.Scale.(plot.LogScale); ok && lo > 0 {
		p.Y.Max = lo * math.Pow(hi/lo, 1/share)
		return
	}
	p.Y.Max = lo + (hi-lo)/share
}

// programs are the programs (application and seed) of rows, in order.
func programs(rows []Row) []string {
	var ps []string
	for _, r := range rows {
		k := programKey(r)
		if !slices.Contains(ps, k) {
			ps = append(ps, k)
		}
	}
	return ps
}

func programKey(r Row) string { return r.Case + " #" + strconv.FormatInt(r.Seed, 10) }

// fig15Point is the programs of one size of one line of Figure 15.
type fig15Point struct {
	app, axis string
	x         int
	runs      []Row
}

func fig15Points(rows []Row) []*fig15Point {
	var out []*fig15Point
	for _, r := range rows {
		i := slices.IndexFunc(out, func(p *fig15Point) bool { return p.app == r.Case && p.axis == r.Axis && strconv.Itoa(p.x) == r.X })
		if i < 0 {
			out = append(out, &fig15Point{app: r.Case, axis: r.Axis, x: atoi(r.X)})
			i = len(out) - 1
		}
		out[i].runs = append(out[i].runs, r)
	}
	return out
}

// mean is the average time and peak memory of the point's runs, the
// timed-out ones counted at the time they stopped (as the paper counts
// them), and how many timed out.
func (p *fig15Point) mean() (t time.Duration, mem float64, timeouts int) {
	var n int
	for _, r := range p.runs {
		if r.Status == StatusSkipped || r.Status == StatusError {
			continue
		}
		n++
		t += exploreTime(r)
		mem += float64(r.MaxRSS)
		if !solved(r) {
			timeouts++
		}
	}
	if n == 0 {
		return 0, 0, timeouts
	}
	return t / time.Duration(n), mem / float64(n) / (1 << 20), timeouts
}

func (p *fig15Point) line() string {
	if p.axis == "sessions" {
		return appTitle(p.app) + ", sessions (3 transactions each)"
	}
	return appTitle(p.app) + ", transactions per session (3 sessions)"
}

// plotExploreFig15 draws Figure 15's average time and average peak
// memory against the size, a line per application and axis; the points
// with timeouts are circled.
func plotExploreFig15(rows []Row, m Machine, dir string) ([]string, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var series []string
	timePts, memPts := make(map[string]plotter.XYs), make(map[string]plotter.XYs)
	var marksT, marksM plotter.XYs
	for _, p := range fig15Points(rows) {
		s := p.line()
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		t, mem, timeouts := p.mean()
		tp := plotter.XY{X: float64(p.x), Y: max(t.Seconds(), 1e-4)}
		mp := plotter.XY{X: float64(p.x), Y: mem}
		timePts[s] = append(timePts[s], tp)
		memPts[s] = append(memPts[s], mp)
		if timeouts > 0 {
			marksT, marksM = append(marksT, tp), append(marksM, mp)
		}
	}
	var files []string
	for _, v := range []struct {
		name, title, label string
		pts                map[string]plotter.XYs
		marks              plotter.XYs
	}{
		{"explore-fig15-time", "average time", "time (s), mean of the programs", timePts, marksT},
		{"explore-fig15-memory", "average peak memory", "peak RSS (MiB), mean of the programs", memPts, marksM},
	} {
		p := newPlot(fmt.Sprintf("Figure 15 (Bouajjani et al., PLDI 2023)\nexplore-ce under CC, %s as programs grow (timeouts counted at the limit)", v.title), m)
		p.X.Label.Text = "sessions, or transactions per session"
		p.Y.Label.Text = v.label
		if err := linearLines(p, series, v.pts, nil); err != nil {
			return files, fmt.Errorf("plot explore-fig15: %w", err)
		}
		if err := ringMarks(p, v.marks, "some program timed out"); err != nil {
			return files, fmt.Errorf("plot explore-fig15: %w", err)
		}
		legendRoom(p, 0.55)
		fs, err := saveSized(p, dir, v.name, 7*vg.Inch, 5*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// variantStats are the figures of one configuration of Figure 14.
type variantStats struct {
	runs, solved, timeouts, skipped, violated int
	median, max                               time.Duration // of the solved runs
	endStates, histories                      int           // totals of the solved runs
	meanMiB                                   float64       // of the solved runs
}

func fig14Figures(rows []Row, variant string) variantStats {
	var s variantStats
	var ts []time.Duration
	var mem float64
	for _, r := range rows {
		if r.Variant != variant {
			continue
		}
		s.runs++
		switch {
		case solved(r):
			s.solved++
			ts = append(ts, exploreTime(r))
			s.endStates += r.Stats.EndStates
			s.histories += r.Stats.Histories
			mem += float64(r.MaxRSS)
			if r.Status == StatusViolated {
				s.violated++
			}
		case r.Status == StatusSkipped:
			s.skipped++
			s.timeouts++
		case r.Status == StatusTimeout || r.Status == StatusNoVerdict:
			s.timeouts++
		}
	}
	if len(ts) > 0 {
		slices.Sort(ts)
		s.median, s.max = medianDuration(ts), ts[len(ts)-1]
		s.meanMiB = mem / float64(len(ts)) / (1 << 20)
	}
	return s
}

// speedups are, per program both explored completely, the time of
// variant over that of CC.
func speedups(rows []Row, variant string) []float64 {
	cc, other := byProgram(rows, "CC"), byProgram(rows, variant)
	var out []float64
	for _, k := range programs(rows) {
		a, b := cc[k], other[k]
		if a == nil || b == nil || !solved(*a) || !solved(*b) {
			continue
		}
		out = append(out, exploreTime(*b).Seconds()/max(exploreTime(*a).Seconds(), 1e-6))
	}
	return out
}

func byProgram(rows []Row, variant string) map[string]*Row {
	m := make(map[string]*Row)
	for i := range rows {
		if rows[i].Variant == variant {
			m[programKey(rows[i])] = &rows[i]
		}
	}
	return m
}

func meanFloat(fs []float64) float64 {
	if len(fs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, f := range fs {
		sum += f
	}
	return sum / float64(len(fs))
}

// historyMismatches compares, per program, the histories explore-ce
// found under CC with those of every other configuration that keeps the
// CC-consistent ones (the plain-optimal RA+CC, RC+CC and true+CC: the
// same set, found otherwise), where both finished; checks that DFS,
// which repeats histories, found at least as many; and that the end
// states of explore-ce*(I0, I) are the histories of explore-ce(I0).
func historyMismatches(rows []Row) (compared int, errs []string) {
	cc := byProgram(rows, "CC")
	for _, v := range fig14Variants {
		if v.Level != "cc" || v.Name == "CC" {
			continue
		}
		other := byProgram(rows, v.Name)
		for _, k := range programs(rows) {
			a, b := cc[k], other[k]
			if a == nil || b == nil || !solved(*a) || !solved(*b) {
				continue
			}
			compared++
			switch {
			case v.DFS && b.Stats.Histories < a.Stats.Histories:
				errs = append(errs, fmt.Sprintf("%s: %s found %d histories, fewer than CC's %d distinct ones", k, v.Name, b.Stats.Histories, a.Stats.Histories))
			case !v.DFS && b.Stats.Histories != a.Stats.Histories:
				errs = append(errs, fmt.Sprintf("%s: %s kept %d histories, CC %d", k, v.Name, b.Stats.Histories, a.Stats.Histories))
			}
		}
	}
	// explore-ce*(I0, I) explores what explore-ce(I0) does: its end
	// states are explore-ce(I0)'s histories.
	for _, pair := range [][2]string{{"RA+CC", "RA"}, {"RC+CC", "RC"}, {"CC+SI", "CC"}, {"CC+SER", "CC"}} {
		star, base := byProgram(rows, pair[0]), byProgram(rows, pair[1])
		for _, k := range programs(rows) {
			a, b := star[k], base[k]
			if a == nil || b == nil || !solved(*a) || !solved(*b) {
				continue
			}
			compared++
			if a.Stats.EndStates != b.Stats.Histories {
				errs = append(errs, fmt.Sprintf("%s: %s reached %d end states, %s found %d histories", k, pair[0], a.Stats.EndStates, pair[1], b.Stats.Histories))
			}
		}
	}
	return compared, errs
}

// exploreSeconds is d for a table: milliseconds below a second.
func exploreSeconds(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
	}
	return seconds(d)
}

// exploreFig14Summary is Figure 14 as a table, the speedups of CC, the
// comparison of the histories, and the paper's target.
func exploreFig14Summary(b *strings.Builder, rows []Row) {
	if len(rows) == 0 {
		return
	}
	ps := programs(rows)
	limits := exploreLimits(rows)
	b.WriteString("\n### Model checking (Bouajjani et al., PLDI 2023, Figure 14): explore-ce and its baselines\n\n")
	fmt.Fprintf(b, "%d programs (%s), each explored once by `isocheck explore --json` in every configuration: CC, RA, RC are explore-ce under that level (`--level`), CC+SI and CC+SER explore-ce*(CC, SI) and explore-ce*(CC, SER) (`--level si|ser`), RA+CC, RC+CC and true+CC the plain-optimal explore-ce*(I0, CC) (`--level cc --base ra|rc|true`), DFS(CC) the baseline without reduction (`--level cc --dfs`). Times are the exploration's own (`elapsed_ms`, process start left out), median and max of the programs solved; memory the process's peak RSS. %s A program that breaks an assertion of its application (exit 1) is still a complete exploration (\"violated\" below).\n\n",
		len(ps), programSizes(rows), limits)
	b.WriteString("| configuration | solved | timeouts | median time | max time | mean peak memory | end states (solved) | histories (solved) | violated | mean speedup of CC |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, v := range exploreVariants(rows) {
		s := fig14Figures(rows, v)
		to := strconv.Itoa(s.timeouts)
		if s.skipped > 0 {
			to += fmt.Sprintf(" (%d skipped)", s.skipped)
		}
		times := "– | – | –"
		if s.solved > 0 {
			times = fmt.Sprintf("%s | %s | %.0f MiB", exploreSeconds(s.median), exploreSeconds(s.max), s.meanMiB)
		}
		speed := "–"
		if isBaseline(v) {
			if sp := speedups(rows, v); len(sp) > 0 {
				speed = fmt.Sprintf("%.1f× (%d programs)", meanFloat(sp), len(sp))
			}
		}
		fmt.Fprintf(b, "| %s | %d/%d | %s | %s | %d | %d | %d | %s |\n", v, s.solved, s.runs, to, times, s.endStates, s.histories, s.violated, speed)
	}
	b.WriteString("\nThe mean speedup of CC over a configuration is the mean, over the programs both explored completely, of its time over CC's (the paper's \"average of individual speedups\", timeouts left out: 3×, 18× and 15× over RA+CC, RC+CC and true+CC). A skipped run is one of RC+CC after RA+CC, or of true+CC after RC+CC, timed out on the program: it explores a superset of histories, and counts as a timeout.\n")

	compared, errs := historyMismatches(rows)
	b.WriteString("\n")
	if len(errs) > 0 {
		fmt.Fprintf(b, "| **ERROR**: histories differ from explore-ce(CC)'s |\n|---|\n")
		for _, e := range errs {
			fmt.Fprintf(b, "| **ERROR** %s |\n", e)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "Consistency of the counts, on the %d comparisons where both runs finished: RA+CC, RC+CC and true+CC keep exactly the histories CC finds, DFS(CC) (which repeats histories) at least as many, and the end states of RA+CC, RC+CC, CC+SI and CC+SER are the histories of RA, RC, CC and CC: %d mismatches.\n", compared, len(errs))

	// The paper's target.
	var over []string
	strongest := time.Duration(0)
	for _, v := range []string{"RC", "RA", "CC", "CC+SI", "CC+SER"} {
		for _, r := range rows {
			if r.Variant != v {
				continue
			}
			if !solved(r) {
				over = append(over, fmt.Sprintf("%s under %s (%s)", programKey(r), v, r.Status))
			} else {
				strongest = max(strongest, exploreTime(r))
			}
		}
	}
	b.WriteString("\nTarget: none of the programs takes over 10 minutes under RC, RA, CC, SI or SER: ")
	if len(over) == 0 {
		fmt.Fprintf(b, "met, every one finished (the slowest in %s).\n", exploreSeconds(strongest))
	} else {
		fmt.Fprintf(b, "**not shown**, %d runs did not finish within the limit: %s.", len(over), strings.Join(over, ", "))
		var limit time.Duration
		for _, r := range rows {
			if r.Status == StatusTimeout && !isBaseline(r.Variant) {
				limit = minPositive(limit, exploreTime(r).Round(time.Second))
			}
		}
		if limit > 0 && limit < 9*time.Minute {
			fmt.Fprintf(b, " They stopped at this run's limit, %v, below the target's 10 minutes: a run with `--explore-timeout 10m` decides.", limit)
		}
		b.WriteString("\n")
	}
}

func isBaseline(v string) bool {
	return v == "RA+CC" || v == "RC+CC" || v == "true+CC" || v == "DFS(CC)"
}

// exploreLimits says the limits of the runs, as the rows show them: the
// shortest time of the timed-out runs (a busy machine makes some stop a
// little later).
func exploreLimits(rows []Row) string {
	own, base := time.Duration(0), time.Duration(0)
	for _, r := range rows {
		if r.Status != StatusTimeout {
			continue
		}
		t := exploreTime(r).Round(time.Second)
		if isBaseline(r.Variant) {
			base = minPositive(base, t)
		} else {
			own = minPositive(own, t)
		}
	}
	var parts []string
	if own > 0 {
		parts = append(parts, fmt.Sprintf("explore-ce runs stopped at %v", own))
	}
	if base > 0 {
		parts = append(parts, fmt.Sprintf("the baselines' runs (RA+CC, RC+CC, true+CC, DFS) at %v", base))
	}
	if len(parts) == 0 {
		return "No run timed out."
	}
	return "Timed-out " + strings.Join(parts, ", ") + " (`--timeout`)."
}

// minPositive is the smaller of a and b, b when a is 0.
func minPositive(a, b time.Duration) time.Duration {
	if a == 0 {
		return b
	}
	return min(a, b)
}

func programSizes(rows []Row) string {
	var apps []string
	for _, r := range rows {
		if !slices.Contains(apps, r.Case) {
			apps = append(apps, r.Case)
		}
	}
	var seeds []int64
	for _, r := range rows {
		if !slices.Contains(seeds, r.Seed) {
			seeds = append(seeds, r.Seed)
		}
	}
	slices.Sort(seeds)
	size := strings.Replace(rows[0].X, "x", " sessions × ", 1) + " transactions"
	return fmt.Sprintf("%s; seeds %d to %d; %s", strings.Join(apps, ", "), seeds[0], seeds[len(seeds)-1], size)
}

// exploreFig15Summary is Figure 15 as a table: the average time and
// memory of each size, timeouts counted.
func exploreFig15Summary(b *strings.Builder, rows []Row) {
	pts := fig15Points(rows)
	if len(pts) == 0 {
		return
	}
	b.WriteString("\n### Model checking (Bouajjani et al., PLDI 2023, Figure 15): explore-ce under CC as programs grow\n\n")
	fmt.Fprintf(b, "%d programs (seeds) of each application a size, explored once by `isocheck explore --level cc --json`. Averages over the programs, counting the ones that timed out at the time they stopped (as the paper's plots include them): their averages are lower bounds; the number that timed out is in parentheses.\n\n", len(pts[0].runs))
	var xs []int
	for _, p := range pts {
		if !slices.Contains(xs, p.x) {
			xs = append(xs, p.x)
		}
	}
	slices.Sort(xs)
	var head []string
	for _, x := range xs {
		head = append(head, strconv.Itoa(x))
	}
	fmt.Fprintf(b, "| line | %s |\n|---|%s\n", strings.Join(head, " | "), strings.Repeat("---:|", len(xs)))
	var lines []string
	for _, p := range pts {
		if !slices.Contains(lines, p.line()) {
			lines = append(lines, p.line())
		}
	}
	for _, l := range lines {
		fmt.Fprintf(b, "| %s |", l)
		for _, x := range xs {
			i := slices.IndexFunc(pts, func(p *fig15Point) bool { return p.line() == l && p.x == x })
			if i < 0 {
				b.WriteString(" – |")
				continue
			}
			t, mem, to := pts[i].mean()
			c := fmt.Sprintf("%s, %.0f MiB", exploreSeconds(t), mem)
			if to > 0 {
				c += fmt.Sprintf(" (%d/%d timed out)", to, len(pts[i].runs))
			}
			fmt.Fprintf(b, " %s |", c)
		}
		b.WriteString("\n")
	}
}
