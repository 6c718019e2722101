package harness

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// The repeat experiment checks histories whose written values repeat per
// key (histgen.Repeat): the share of reads with several candidate
// writers (Fraction) and the writers of a value (Writers) vary, beside
// the same history with unique values.
var (
	repeatFractions = []float64{0.1, 0.5, 1}
	repeatWriters   = []int{2, 4, 16}
)

// repeatSizes are the history sizes of the repeat experiment.
func repeatSizes(s Scale) []int {
	switch s {
	case Tiny:
		return []int{500}
	case Quick:
		return []int{10_000}
	}
	return []int{10_000, 100_000}
}

// repeatLevels are the levels the repeat experiment checks: SER, SI and
// CC at tiny and quick scale, RA and RC as well otherwise.
func repeatLevels(s Scale) []string {
	if s == Tiny || s == Quick {
		return []string{"ser", "si", "cc"}
	}
	return []string{"ser", "si", "cc", "ra", "rc"}
}

// repeatWorkload is the history of n transactions the repeat experiment
// folds: the scale experiment's shape (20 sessions of 15 operations a
// transaction, half reads, uniform keys) on a simulated serializable
// store, so that it satisfies every level, over n/10 keys rather than n,
// so that a key has about 75 writes: enough for 16 writers a value.
func repeatWorkload(n int) histgen.LargeConfig {
	return histgen.LargeConfig{Sessions: 20, TxnsPerSession: n / 20, OpsPerTxn: 15, Keys: max(n/10, 1), ReadProportion: 0.5,
		Dist: workload.Uniform, Seed: 13, Store: histgen.Serializable}
}

// repeatSeed chooses the folded keys.
const repeatSeed = 1

// repeatCase names a folded history in the case column: "fraction=0.5
// writers=4", or "unique" for the history as generated.
func repeatCase(fraction float64, writers int) string {
	if fraction == 0 {
		return "unique"
	}
	return fmt.Sprintf("fraction=%g writers=%d", fraction, writers)
}

// parseRepeatCase reads a case of repeatCase: the fraction and writers,
// 0 and 0 for "unique".
func parseRepeatCase(c string) (fraction float64, writers int, ok bool) {
	if c == "unique" {
		return 0, 0, true
	}
	f, w, found := strings.Cut(c, " ")
	if !found || !strings.HasPrefix(f, "fraction=") || !strings.HasPrefix(w, "writers=") {
		return 0, 0, false
	}
	fraction, err1 := strconv.ParseFloat(strings.TrimPrefix(f, "fraction="), 64)
	writers, err2 := strconv.Atoi(strings.TrimPrefix(w, "writers="))
	return fraction, writers, err1 == nil && err2 == nil
}

// repeatPoint is one measurement of the repeat experiment, for the skips
// after a run that gave no verdict.
type repeatPoint struct {
	n        int
	fraction float64
	writers  int
}

// harder reports whether p has at least as much of everything as q.
func (p repeatPoint) harder(q repeatPoint) bool {
	return p.n >= q.n && p.fraction >= q.fraction && p.writers >= q.writers
}

// runRepeat generates, for each size, the history of repeatWorkload and
// its folds by histgen.Repeat for each fraction and writers, and checks
// each at each level. A fold at least as large, as folded and with as
// many writers as one that timed out (or gave up) at a level is
// skipped there. Until the checker accepts repeated values, the folded
// histories' runs are errors (bad input), recorded like any other.
func runRepeat(ctx context.Context, e *env) ([]Row, error) {
	var rows []Row
	stuck := make(map[string][]repeatPoint) // by level
	for _, n := range repeatSizes(e.cfg.Scale) {
		cfg := repeatWorkload(n)
		// The base history is generated once per size, and every fold
		// written from it, before any check runs: the harness holds no
		// history while a checker runs beside it.
		var base *history.History
		baseOf := func() *history.History {
			if base == nil {
				base = histgen.Large(cfg)
			}
			return base
		}
		type fold struct {
			point repeatPoint
			g     generated
			path  string
		}
		folds := []fold{{point: repeatPoint{n: n}}}
		for _, w := range repeatWriters {
			for _, f := range repeatFractions {
				folds = append(folds, fold{point: repeatPoint{n, f, w}})
			}
		}
		for i := range folds {
			rc := histgen.RepeatConfig{Fraction: folds[i].point.fraction, Writers: folds[i].point.writers, Seed: repeatSeed}
			key := large(cfg).key
			if rc.Fraction > 0 {
				key += "-repeat-" + strconv.FormatFloat(rc.Fraction, 'g', -1, 64) + "-" + strconv.Itoa(rc.Writers)
			}
			folds[i].g = generated{key: key, make: func() *history.History { return histgen.Repeat(baseOf(), rc) }}
			path, err := e.historyFile(folds[i].g, format.JSONL)
			if err != nil {
				return rows, err
			}
			folds[i].path = path
		}
		base = nil
		for _, l := range repeatLevels(e.cfg.Scale) {
			for _, fd := range folds {
				p := fd.point
				proto := Row{Experiment: "repeat", Case: repeatCase(p.fraction, p.writers), Axis: "fraction",
					X: strconv.FormatFloat(p.fraction, 'g', -1, 64), Txns: n}
				if p.fraction > 0 && slices.ContainsFunc(stuck[l], p.harder) {
					r := proto
					r.Checker, r.Level, r.Variant, r.Rep = "isocheck", l, "default", 1
					r.Status, r.Detail = StatusSkipped, "a smaller fold gave no verdict"
					e.logRow(r)
					rows = append(rows, r)
					continue
				}
				got, err := e.measure(ctx, proto, CheckOptions{Level: l}, fd.path, nil)
				rows = append(rows, got...)
				if err != nil {
					return rows, err
				}
				if len(got) > 0 && (got[0].Status == StatusTimeout || got[0].Status == StatusNoVerdict) {
					stuck[l] = append(stuck[l], p)
				}
			}
		}
		for _, fd := range folds {
			e.forget(fd.g)
		}
	}
	return rows, nil
}

// repeatGroup is the repetitions of one measurement of the repeat
// experiment.
type repeatGroup struct {
	group
	fraction float64
	writers  int // 0 for the unique history
}

// repeatGroups gathers rows of the repeat experiment by size, then as
// groups does; rows of another case are left out.
func repeatGroups(rows []Row) (sizes []int, by map[int][]repeatGroup) {
	by = make(map[int][]repeatGroup)
	bySize := make(map[int][]Row)
	for _, r := range rows {
		if r.Checker != "isocheck" {
			continue
		}
		if _, ok := bySize[r.Txns]; !ok {
			sizes = append(sizes, r.Txns)
		}
		bySize[r.Txns] = append(bySize[r.Txns], r)
	}
	slices.Sort(sizes)
	for _, n := range sizes {
		for _, g := range groups(bySize[n]) {
			f, w, ok := parseRepeatCase(g.Case)
			if !ok {
				continue
			}
			by[n] = append(by[n], repeatGroup{g, f, w})
		}
	}
	return sizes, by
}

// repeatLevelsOf are the levels of gs, strongest first as the
// experiment checks them.
func repeatLevelsOf(gs []repeatGroup) []string {
	var ls []string
	for _, g := range gs {
		if !slices.Contains(ls, g.Level) {
			ls = append(ls, g.Level)
		}
	}
	return ls
}

// plotRepeat draws, per size, the wall time and the peak memory against
// the share of reads with several candidate writers: a panel per level,
// a line per writers count starting from the unique history at 0. A
// fold that gave no verdict has no point; the legend counts them.
func plotRepeat(rows []Row, m Machine, dir string) ([]string, error) {
	var files []string
	sizes, by := repeatGroups(rows)
	for _, n := range sizes {
		gs := by[n]
		levels := repeatLevelsOf(gs)
		for _, v := range []struct {
			name, label string
			value       func(Row) float64
		}{
			{"repeat-time", "wall time (s), median run", func(r Row) float64 { return r.Wall.Seconds() }},
			{"repeat-memory", "peak RSS (MiB)", func(r Row) float64 { return float64(r.MaxRSS) / (1 << 20) }},
		} {
			var panels []*plot.Plot
			for _, l := range levels {
				p, err := repeatPanel(gs, l, n, m, v.label, v.value)
				if err != nil {
					return files, err
				}
				panels = append(panels, p)
			}
			saved, err := savePanels(panels, 3, dir, fmt.Sprintf("%s-%s", v.name, sizeName(n)), 4*vg.Inch, 3.5*vg.Inch)
			files = append(files, saved...)
			if err != nil {
				return files, err
			}
		}
	}
	return files, nil
}

// repeatPanel is the plot of one level of one size: value against the
// fraction, a line per writers count.
func repeatPanel(gs []repeatGroup, level string, n int, m Machine, label string, value func(Row) float64) (*plot.Plot, error) {
	var base *repeatGroup
	var writers []int
	for i, g := range gs {
		if g.Level != level {
			continue
		}
		if g.writers == 0 {
			base = &gs[i]
		} else if !slices.Contains(writers, g.writers) {
			writers = append(writers, g.writers)
		}
	}
	slices.Sort(writers)
	var series []string
	pts := make(map[string]plotter.XYs)
	for _, w := range writers {
		var xys plotter.XYs
		if base != nil && base.ok() {
			xys = append(xys, plotter.XY{X: 0, Y: value(base.median)})
		}
		failed := make(map[string]int)
		for _, g := range gs {
			if g.Level != level || g.writers != w {
				continue
			}
			if !g.ok() {
				failed[g.median.Status]++
				continue
			}
			xys = append(xys, plotter.XY{X: g.fraction, Y: value(g.median)})
		}
		slices.SortFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		name := fmt.Sprintf("%d writers", w)
		if len(failed) > 0 {
			var parts []string
			for _, st := range []string{StatusError, StatusTimeout, StatusNoVerdict, StatusSkipped} {
				if failed[st] > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", failed[st], st))
				}
			}
			name += " (" + strings.Join(parts, ", ") + ")"
		}
		series = append(series, name)
		pts[name] = xys
	}
	p := newPlot(fmt.Sprintf("%s, %s transactions: values repeated per key", strings.ToUpper(level), sizeName(n)), m)
	p.X.Label.Text = "share of reads with several candidate writers"
	p.Y.Label.Text = label
	if err := addSeries(p, series, pts); err != nil {
		return nil, fmt.Errorf("plot repeat: %w", err)
	}
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min = 0
	headroom(p)
	p.Legend.Left = true
	return p, nil
}

// savePanels writes plots side by side, cols a row, each panel width by
// height, as dir/name.png and dir/name.svg.
func savePanels(plots []*plot.Plot, cols int, dir, name string, width, height vg.Length) ([]string, error) {
	if len(plots) == 0 {
		return nil, nil
	}
	cols = min(cols, len(plots))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(plots) {
				grid[r][c] = plots[i]
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	w, h := width*vg.Length(cols), height*vg.Length(rows)
	var files []string
	for _, ext := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return files, fmt.Errorf("plot %s: %w", name, err)
		}
		canvases := plot.Align(grid, tiles, draw.New(c))
		for r := range grid {
			for col, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][col])
				}
			}
		}
		f := filepath.Join(dir, name+"."+ext)
		if err := writeCanvas(c, f); err != nil {
			return files, fmt.Errorf("plot %s: %w", f, err)
		}
		files = append(files, f)
	}
	return files, nil
}

func writeCanvas(c vg.CanvasWriterTo, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// repeatSummary writes the repeat experiment's table: per size, level and
// writers, the time to check the unique history and each fold, and the
// peak memory of the unique history and of the fold of every read.
func repeatSummary(b *strings.Builder, rows []Row) {
	sizes, by := repeatGroups(rows)
	if len(sizes) == 0 {
		return
	}
	b.WriteString("\n### Repeated values: time to check as more reads have several candidate writers\n\n")
	b.WriteString("Histories of a serializable store (20 sessions, 15 operations a transaction, half reads, uniform over a tenth as many keys as transactions), with unique values and folded by `histgen.Repeat`: on keys that take the given share of the reads, each value written by up to the given number of writes. Every fold satisfies every level; a fold reported `violated` is a bug.\n\n")
	fmt.Fprintf(b, "| transactions | level | writers | unique values |")
	for _, f := range repeatFractions {
		fmt.Fprintf(b, " %g%% of reads |", 100*f)
	}
	b.WriteString(" peak memory, unique → every read |\n|---:|---|---:|---:|")
	b.WriteString(strings.Repeat("---:|", len(repeatFractions)+1) + "\n")
	cell := func(g *repeatGroup) string {
		if g == nil {
			return "–"
		}
		s := outcome(g.group)
		if g.median.Status == StatusViolated {
			s += " **violated**"
		}
		return s
	}
	var failed []repeatGroup
	for _, n := range sizes {
		gs := by[n]
		find := func(level string, f float64, w int) *repeatGroup {
			for i := range gs {
				if g := &gs[i]; g.Level == level && g.fraction == f && (f == 0 || g.writers == w) {
					return g
				}
			}
			return nil
		}
		for _, g := range gs {
			if g.writers > 0 && g.median.Status == StatusError {
				failed = append(failed, g)
			}
		}
		for _, l := range repeatLevelsOf(gs) {
			var writers []int
			for _, g := range gs {
				if g.Level == l && g.writers > 0 && !slices.Contains(writers, g.writers) {
					writers = append(writers, g.writers)
				}
			}
			slices.Sort(writers)
			if len(writers) == 0 {
				writers = []int{0}
			}
			base := find(l, 0, 0)
			for _, w := range writers {
				fmt.Fprintf(b, "| %s | %s | %d | %s |", sizeName(n), strings.ToUpper(l), w, cell(base))
				for _, f := range repeatFractions {
					fmt.Fprintf(b, " %s |", cell(find(l, f, w)))
				}
				mem := "–"
				if base != nil && base.ok() {
					mem = mib(base.median.MaxRSS) + " → "
					if all := find(l, 1, w); all != nil && all.ok() {
						mem += mib(all.median.MaxRSS)
					} else {
						mem += "–"
					}
				}
				fmt.Fprintf(b, " %s |\n", mem)
			}
		}
	}
	if len(failed) > 0 {
		detail := failed[0].median.Detail
		if len(detail) > 300 {
			detail = detail[:300] + "…"
		}
		fmt.Fprintf(b, "\n%d folded histories were not checked (error): the first said `%s`.\n", len(failed), strings.ReplaceAll(detail, "`", "'"))
	}
}
