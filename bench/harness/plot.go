package harness

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// group is the runs of one measurement repeated: same case, variant,
// level and checker.
type group struct {
	Row          // the first repetition, for its labels
	runs   []Row // every repetition
	median Row   // the repetition of median wall time
}

// ok reports whether the median run gave a verdict (or, for another
// checker, ended by itself).
func (g group) ok() bool {
	s := g.median.Status
	return s != StatusTimeout && s != StatusError && s != StatusNoVerdict && s != StatusSkipped
}

// groups gathers rows by case, axis, x, variant, level and checker, in the
// order they first appear.
func groups(rows []Row) []group {
	var out []group
	index := make(map[string]int)
	for _, r := range rows {
		k := strings.Join([]string{r.Case, r.Axis, r.X, r.Variant, r.Level, r.Checker}, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, group{Row: r})
		}
		out[i].runs = append(out[i].runs, r)
	}
	for i := range out {
		runs := slices.Clone(out[i].runs)
		sort.SliceStable(runs, func(a, b int) bool { return runs[a].Wall < runs[b].Wall })
		out[i].median = runs[len(runs)/2]
	}
	return out
}

// newPlot returns a plot titled title, with the machine and version under
// it.
func newPlot(title string, m Machine) *plot.Plot {
	p := plot.New()
	p.Title.Text = title + "\n" + m.String()
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Top = true
	return p
}

// save writes p as dir/name.png and dir/name.svg, 4 inches high.
func save(p *plot.Plot, dir, name string, width vg.Length) ([]string, error) {
	return saveSized(p, dir, name, width, 4*vg.Inch)
}

// saveSized is save with a height.
func saveSized(p *plot.Plot, dir, name string, width, height vg.Length) ([]string, error) {
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		f := filepath.Join(dir, name+ext)
		if err := p.Save(width, height, f); err != nil {
			return files, fmt.Errorf("plot %s: %w", f, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// barWidth fits n bars side by side in each of cats groups of a bar chart
// width wide.
func barWidth(width vg.Length, cats, n int) vg.Length {
	w := 0.7 * float64(width.Points()-80) / float64(max(cats, 1)*max(n, 1))
	return vg.Points(min(60, w))
}

// headroom raises the top of p's Y axis above the data, for the legend.
func headroom(p *plot.Plot) {
	if p.Y.Max > p.Y.Min {
		p.Y.Max += 0.3 * (p.Y.Max - p.Y.Min)
	}
}

// plotFig5 draws a stacked bar chart of the stage times for each axis.
func plotFig5(rows []Row, m Machine, dir string) ([]string, error) {
	var files []string
	var axes []string
	byAxis := make(map[string][]group)
	for _, g := range groups(rows) {
		if g.Checker != "isocheck" {
			continue
		}
		if _, ok := byAxis[g.Axis]; !ok {
			axes = append(axes, g.Axis)
		}
		byAxis[g.Axis] = append(byAxis[g.Axis], g)
	}
	for i, ax := range axes {
		gs := byAxis[ax]
		p := newPlot(fmt.Sprintf("Figure 5(%c): checking SI as %s varies", 'a'+i, ax), m)
		p.X.Label.Text = ax
		p.Y.Label.Text = "time (ms), median run"
		var names []string
		for _, g := range gs {
			name := g.X
			if !g.ok() {
				name += " (" + g.median.Status + ")"
			}
			names = append(names, name)
		}
		stages := []struct {
			name string
			ms   func(Stats) float64
		}{
			{"parse", func(s Stats) float64 { return s.ParseMS }},
			{"construct", func(s Stats) float64 { return s.ConstructMS }},
			{"prune", func(s Stats) float64 { return s.PruneMS }},
			{"encode", func(s Stats) float64 { return s.EncodeMS }},
			{"solve", func(s Stats) float64 { return s.SolveMS }},
		}
		var below *plotter.BarChart
		for j, st := range stages {
			vals := make(plotter.Values, len(gs))
			for k, g := range gs {
				vals[k] = st.ms(g.median.Stats)
			}
			bar, err := plotter.NewBarChart(vals, barWidth(6*vg.Inch, len(gs), 1))
			if err != nil {
				return files, fmt.Errorf("plot fig5: %w", err)
			}
			bar.Color = plotutil.Color(j)
			bar.LineStyle.Width = 0
			if below != nil {
				bar.StackOn(below)
			}
			below = bar
			p.Add(bar)
			p.Legend.Add(st.name, bar)
		}
		p.NominalX(names...)
		headroom(p)
		fs, err := save(p, dir, "fig5-"+slug(ax), 6*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// groupedBars draws bars of value for each series (one colour each) beside
// one another at each category.
func groupedBars(p *plot.Plot, width vg.Length, categories, series []string, value func(cat, ser int) float64) error {
	w := barWidth(width, len(categories), len(series))
	for j, s := range series {
		vals := make(plotter.Values, len(categories))
		for i := range categories {
			vals[i] = value(i, j)
		}
		bar, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bar.Color = plotutil.Color(j)
		bar.LineStyle.Width = 0
		bar.Offset = w * vg.Length(float64(j)-float64(len(series)-1)/2)
		p.Add(bar)
		p.Legend.Add(s, bar)
	}
	p.NominalX(categories...)
	headroom(p)
	return nil
}

// plotTable3 draws the share of constraints and unknown dependencies left
// after pruning, per benchmark.
func plotTable3(rows []Row, m Machine, dir string) ([]string, error) {
	var gs []group
	for _, g := range groups(rows) {
		if g.Checker == "isocheck" {
			gs = append(gs, g)
		}
	}
	p := newPlot("Table 3: what pruning leaves to the solver (SI)", m)
	p.Y.Label.Text = "% left after pruning"
	var cats []string
	for _, g := range gs {
		cats = append(cats, g.Case+"\n"+g.Variant)
	}
	pct := func(after, before int) float64 {
		if before == 0 {
			return 0
		}
		return 100 * float64(after) / float64(before)
	}
	err := groupedBars(p, 11*vg.Inch, cats, []string{"constraints", "unknown dependencies"}, func(i, j int) float64 {
		s := gs[i].median.Stats
		if j == 0 {
			return pct(s.ConstraintsRemaining, s.Constraints)
		}
		return pct(s.UnknownEdgesRemaining, s.UnknownEdges)
	})
	if err != nil {
		return nil, fmt.Errorf("plot table3: %w", err)
	}
	return save(p, dir, "table3", 11*vg.Inch)
}

// plotFig9 draws the checking time of each variant per benchmark, a
// point per variant beside one another, on a log scale: the variants
// differ by orders of magnitude.
func plotFig9(rows []Row, m Machine, dir string) ([]string, error) {
	var cats, series []string
	wall := make(map[[2]string]float64)
	for _, g := range groups(rows) {
		if g.Checker != "isocheck" {
			continue
		}
		if !slices.Contains(cats, g.Case) {
			cats = append(cats, g.Case)
		}
		if !slices.Contains(series, g.Variant) {
			series = append(series, g.Variant)
		}
		if g.ok() || g.median.Status == StatusTimeout {
			wall[[2]string{g.Case, g.Variant}] = max(g.median.Wall.Seconds(), 1e-3)
		}
	}
	p := newPlot("Figure 9: ablations, checking SI (timed-out runs at their limit, skipped ones left out)", m)
	p.Y.Label.Text = "wall time (s), median run"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	for j, ser := range series {
		var pts plotter.XYs
		for i, c := range cats {
			if y, ok := wall[[2]string{c, ser}]; ok {
				x := float64(i) + 0.6*(float64(j)/float64(max(len(series)-1, 1))-0.5)
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plot fig9: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = plotutil.Color(j), plotutil.Shape(j), vg.Points(4)
		p.Add(sc)
		p.Legend.Add(ser, sc)
	}
	p.Add(plotter.NewGrid())
	p.NominalX(cats...)
	p.X.Min, p.X.Max = -0.5, float64(len(cats))-0.5
	p.Legend.Left = true
	return save(p, dir, "fig9", 8*vg.Inch)
}

// addSeries adds one line per series, each in its colour and marker,
// with its legend entry.
func addSeries(p *plot.Plot, series []string, pts map[string]plotter.XYs) error {
	return addStyledSeries(p, series, pts, nil)
}

// addStyledSeries is addSeries with style, when not nil, called on each
// series' line before it is added.
func addStyledSeries(p *plot.Plot, series []string, pts map[string]plotter.XYs, style func(series string, l *plotter.Line)) error {
	for i, s := range series {
		if len(pts[s]) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts[s])
		if err != nil {
			return err
		}
		l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		if style != nil {
			style(s, l)
		}
		p.Add(l, sc)
		p.Legend.Add(s, l, sc)
	}
	return nil
}

// lines draws one line per series of (x, y) points on log-log axes.
func lines(p *plot.Plot, series []string, pts map[string]plotter.XYs) error {
	// A log scale needs an axis range of positive numbers: at least two
	// distinct values (a single one is padded by ±1).
	xs, ys := make(map[float64]bool), make(map[float64]bool)
	for _, s := range series {
		for _, pt := range pts[s] {
			xs[pt.X], ys[pt.Y] = true, true
		}
	}
	if len(xs) > 1 {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if len(ys) > 1 {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if err := addSeries(p, series, pts); err != nil {
		return err
	}
	p.Legend.Left = true
	return nil
}

// plotScaling draws wall time and peak memory against history size.
func plotScaling(rows []Row, m Machine, dir string) ([]string, error) {
	var series []string
	timePts := make(map[string]plotter.XYs)
	memPts := make(map[string]plotter.XYs)
	for _, g := range groups(rows) {
		if !g.ok() || g.median.MaxRSS <= 0 {
			continue
		}
		if !slices.Contains(series, g.Checker) {
			series = append(series, g.Checker)
		}
		x := float64(g.Txns)
		timePts[g.Checker] = append(timePts[g.Checker], plotter.XY{X: x, Y: max(g.median.Wall.Seconds(), 1e-3)})
		memPts[g.Checker] = append(memPts[g.Checker], plotter.XY{X: x, Y: float64(g.median.MaxRSS) / (1 << 20)})
	}
	var files []string
	for _, v := range []struct {
		name, title, label string
		pts                map[string]plotter.XYs
	}{
		{"scaling-time", "checking SI: time against history size", "wall time (s), median run", timePts},
		{"scaling-memory", "checking SI: peak memory against history size", "peak RSS (MiB)", memPts},
	} {
		p := newPlot(v.title, m)
		p.X.Label.Text = "transactions"
		p.Y.Label.Text = v.label
		if err := lines(p, series, v.pts); err != nil {
			return files, fmt.Errorf("plot scaling: %w", err)
		}
		fs, err := save(p, dir, v.name, 6*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// plotMini draws the time of checking mini-transaction histories at each
// level beside general ones, against size.
func plotMini(rows []Row, m Machine, dir string) ([]string, error) {
	var series []string
	pts := make(map[string]plotter.XYs)
	for _, g := range groups(rows) {
		if !g.ok() {
			continue
		}
		s := g.Case + " " + strings.ToUpper(g.Level)
		if g.Checker != "isocheck" {
			s = g.Case + ": " + g.Checker
		}
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		x, _ := strconv.Atoi(g.X)
		pts[s] = append(pts[s], plotter.XY{X: float64(x), Y: max(g.median.Wall.Seconds(), 1e-3)})
	}
	p := newPlot("mini-transactions (Wei et al., ICDE 2025) against general transactions", m)
	p.X.Label.Text = "transactions"
	p.Y.Label.Text = "wall time (s), median run"
	if err := lines(p, series, pts); err != nil {
		return nil, fmt.Errorf("plot mini: %w", err)
	}
	return save(p, dir, "mini", 6*vg.Inch)
}

// slug is s as a file name: lower case, with dashes for anything else.
func slug(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
}
