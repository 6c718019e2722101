package harness

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/workload"
)

// scaleLevels are the levels the scale experiment checks: SI and SER
// through the polygraph and the solver, CC by saturation.
var scaleLevels = []string{"si", "ser", "cc"}

// scaleSizes are the history sizes of the scale experiment: `make
// bench-scale` runs Paper, to 4M transactions; Full adds 10M, which
// needs about 20 GB.
func scaleSizes(s Scale) []int {
	switch s {
	case Tiny:
		return []int{2_000, 5_000}
	case Quick:
		return []int{100_000, 200_000, 500_000, 1_000_000}
	case Paper:
		return []int{100_000, 200_000, 500_000, 1_000_000, 2_000_000, 4_000_000}
	}
	return []int{100_000, 200_000, 500_000, 1_000_000, 2_000_000, 4_000_000, 10_000_000}
}

// scaleWorkload is the history of n transactions the scale experiment
// checks: 20 sessions of 15 operations a transaction, half reads, over
// as many keys as transactions chosen uniformly, on a simulated
// snapshot-isolation store (`isocheck generate --store si --sessions 20
// --txns n/20 --ops 15 --keys n --dist uniform --seed 13`): the shape of
// long soak tests, where every key sees a few writes.
func scaleWorkload(n int) histgen.LargeConfig {
	return histgen.LargeConfig{Sessions: 20, TxnsPerSession: n / 20, OpsPerTxn: 15, Keys: n, ReadProportion: 0.5,
		Dist: workload.Uniform, Seed: 13, Store: histgen.SnapshotIsolation}
}

// violatingSizes are the sizes of the scale experiment's violating
// histories (scaleViolating).
func violatingSizes(s Scale) []int {
	if s == Tiny {
		return []int{2_000}
	}
	return []int{200_000, 1_000_000}
}

// violatingLevels are the levels the violating histories are checked at:
// every one, and all at once.
var violatingLevels = []string{"rc", "ra", "cc", "pc", "si", "ser", "sser", "all"}

// scaleViolating is a history of n transactions from a store without
// first-committer-wins, which loses updates on its hot keys: SI and the
// stronger levels broken, PC and the weaker ones kept, and PC's orders
// of writes far from settled by reachability (`isocheck generate --store
// si-no-fcw --sessions 100 --txns n/100`: 15 operations, half reads,
// 10,000 keys by Zipf's law, seed 1). Checking a history the database
// got wrong must cost no more than one it got right.
func scaleViolating(n int) histgen.LargeConfig {
	return histgen.LargeConfig{Sessions: 100, TxnsPerSession: n / 100, OpsPerTxn: 15, Keys: 10_000, ReadProportion: 0.5,
		Dist: workload.Zipf, Seed: 1, Store: histgen.SnapshotNoFCW}
}

// runScale runs the scale experiment: the uniform histories the database
// got right, then the violating ones it got wrong.
func runScale(ctx context.Context, e *env) ([]Row, error) {
	rows, err := runScaleCase(ctx, e, "uniform", scaleSizes(e.cfg.Scale), scaleWorkload, scaleLevels)
	if err != nil {
		return rows, err
	}
	more, err := runScaleCase(ctx, e, "si-no-fcw", violatingSizes(e.cfg.Scale), scaleViolating, violatingLevels)
	return append(rows, more...), err
}

// runScaleCase checks, at each of levels, the history of each size that
// workload generates, as rows of the case named name.
func runScaleCase(ctx context.Context, e *env, name string, sizes []int, workload func(int) histgen.LargeConfig, levels []string) ([]Row, error) {
	var rows []Row
	for _, n := range sizes {
		g := large(workload(n))
		path, err := e.historyFile(g, format.JSONL)
		if err != nil {
			return rows, err
		}
		for _, l := range levels {
			got, err := e.measure(ctx, Row{Experiment: "scale", Case: name, X: strconv.Itoa(n), Txns: n}, CheckOptions{Level: l}, path, nil)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
		}
		e.forget(g)
	}
	return rows, nil
}

// peerPoint is a peer's published or measured figure for a history of
// the scale experiment's shape (../shared/notes/peers.md of the project's
// notes: the 2-core, 24 GB machine).
type peerPoint struct {
	name    string
	txns    float64
	seconds float64 // 0: not known
	mib     float64 // 0: not known
}

// scalePeers are the peers' points beside the scale experiment's: at
// 100k transactions of this shape, VeriStrong (Chen et al., "VeriStrong:
// Verifying Strong Isolation Levels with Non-unique Values") answers SI in
// 87 s with 6.1 GB, and PolySI (Huang et al., PVLDB 2023) gives no answer
// within 600 s (drawn at 600 s).
var scalePeers = []peerPoint{
	{name: "VeriStrong, SI", txns: 99_909, seconds: 87, mib: 6.1 * 1024},
	{name: "PolySI, SI (no answer in 600 s)", txns: 99_909, seconds: 600},
}

// plotScale draws, on log-log axes, the wall time and peak memory of each
// level against the history's size, with the peers' points, and at SI the
// time of each stage per thousand transactions and the peak memory at its
// end per transaction (flat lines are linear growth); it writes the
// stages as scale-stages.csv.
func plotScale(rows []Row, m Machine, dir string) ([]string, error) {
	var files []string
	if slices.ContainsFunc(rows, func(r Row) bool { return len(r.Stages) > 0 }) {
		saved, err := writeScaleStages(rows, dir)
		if files = saved; err != nil {
			return files, err
		}
	} else if err := readScaleStages(rows, dir); err != nil {
		// Drawn again from the CSV files (Replot), whose rows have no
		// stages: they are in scale-stages.csv.
		return files, err
	}
	var series []string
	timePts := make(map[string]plotter.XYs)
	memPts := make(map[string]plotter.XYs)
	stageTime := make(map[string]plotter.XYs)
	stageMem := make(map[string]plotter.XYs)
	var stages []string
	violTime := make(map[string]plotter.XYs)
	var violSeries []string
	for _, g := range groups(rows) {
		if !g.ok() || g.median.MaxRSS <= 0 {
			continue
		}
		if g.Case == "si-no-fcw" {
			s := strings.ToUpper(g.Level)
			if !slices.Contains(violSeries, s) {
				violSeries = append(violSeries, s)
			}
			violTime[s] = append(violTime[s], plotter.XY{X: float64(g.Txns), Y: max(g.median.Wall.Seconds(), 1e-3)})
			continue
		}
		s := strings.ToUpper(g.Level)
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		x := float64(g.Txns)
		timePts[s] = append(timePts[s], plotter.XY{X: x, Y: max(g.median.Wall.Seconds(), 1e-3)})
		memPts[s] = append(memPts[s], plotter.XY{X: x, Y: float64(g.median.MaxRSS) / (1 << 20)})
		if g.Level != "si" {
			continue
		}
		for _, st := range g.median.Stages {
			if !slices.Contains(stages, st.Stage) {
				stages = append(stages, st.Stage)
			}
			stageTime[st.Stage] = append(stageTime[st.Stage], plotter.XY{X: x, Y: max(st.MS/(x/1000), 1e-3)})
		}
		for _, st := range g.median.Stages {
			stageMem[st.Stage] = append(stageMem[st.Stage], plotter.XY{X: x, Y: max(float64(st.PeakRSS)/x, 1)})
		}
	}
	for _, v := range []struct {
		name, title, label string
		pts                map[string]plotter.XYs
		peer               func(peerPoint) float64
	}{
		{"scale-time", "uniform histories, 20 sessions: time against size", "wall time (s), median run", timePts, func(p peerPoint) float64 { return p.seconds }},
		{"scale-memory", "uniform histories, 20 sessions: peak memory against size", "peak RSS (MiB)", memPts, func(p peerPoint) float64 { return p.mib }},
	} {
		p := newPlot(v.title, m)
		p.X.Label.Text = "transactions"
		p.Y.Label.Text = v.label
		for i, peer := range scalePeers {
			y := v.peer(peer)
			if y == 0 {
				continue
			}
			sc, err := plotter.NewScatter(plotter.XYs{{X: peer.txns, Y: y}})
			if err != nil {
				return files, fmt.Errorf("plot scale: %w", err)
			}
			sc.Color, sc.Shape, sc.Radius = plotutil.Color(len(series)+i), draw.CrossGlyph{}, vg.Points(5)
			p.Add(sc)
			p.Legend.Add(peer.name, sc)
		}
		if err := lines(p, series, v.pts); err != nil {
			return files, fmt.Errorf("plot scale: %w", err)
		}
		roomForLegend(p, 2+len(series))
		saved, err := save(p, dir, v.name, 6*vg.Inch)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	if len(violTime) > 0 {
		p := newPlot("violating histories (si-no-fcw, 100 sessions): time against size", m)
		p.X.Label.Text = "transactions"
		p.Y.Label.Text = "wall time (s), median run"
		if err := lines(p, violSeries, violTime); err != nil {
			return files, fmt.Errorf("plot scale: %w", err)
		}
		roomForLegend(p, len(violSeries))
		saved, err := save(p, dir, "scale-violating-time", 6*vg.Inch)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	for _, v := range []struct {
		name, title, label string
		pts                map[string]plotter.XYs
	}{
		{"scale-stages-time", "checking SI: time of each stage per 1,000 transactions", "ms per 1,000 transactions", stageTime},
		{"scale-stages-memory", "checking SI: peak memory at the end of each stage, per transaction", "bytes per transaction", stageMem},
	} {
		if len(v.pts) == 0 {
			continue
		}
		p := newPlot(v.title, m)
		p.X.Label.Text = "transactions"
		p.Y.Label.Text = v.label
		if err := lines(p, stages, v.pts); err != nil {
			return files, fmt.Errorf("plot scale: %w", err)
		}
		roomForLegend(p, len(stages))
		saved, err := saveSized(p, dir, v.name, 7*vg.Inch, 5*vg.Inch)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// roomForLegend raises the top of p's logarithmic y axis so that a legend
// of entries lines, at the top left, covers none of the points: each
// entry takes about a twentieth of the height.
func roomForLegend(p *plot.Plot, entries int) {
	if _, ok := p.Y.Scale.(plot.LogScale); !ok || p.Y.Max <= 0 || p.Y.Min <= 0 {
		return
	}
	// The points keep the lower part of the height the legend leaves.
	frac := 1 - float64(entries+1)/20
	span := math.Log(p.Y.Max / p.Y.Min)
	p.Y.Max = p.Y.Min * math.Exp(span/max(frac, 0.3))
}

// writeScaleStages writes the stages of every run of the scale
// experiment to dir/scale-stages.csv: its size, level and repetition, and
// each stage's time and the peak memory of the process at its end.
func writeScaleStages(rows []Row, dir string) ([]string, error) {
	name := filepath.Join(dir, "scale-stages.csv")
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("write stages: %w", err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"txns", "level", "rep", "status", "stage", "ms", "peak_rss_bytes"})
	for _, r := range rows {
		for _, st := range r.Stages {
			w.Write([]string{strconv.Itoa(r.Txns), r.Level, strconv.Itoa(r.Rep), r.Status, st.Stage,
				strconv.FormatFloat(st.MS, 'f', 1, 64), strconv.FormatInt(st.PeakRSS, 10)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return nil, fmt.Errorf("write stages: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write stages: %w", err)
	}
	return []string{name}, nil
}

// readScaleStages gives rows the stages dir/scale-stages.csv records for
// them, if there is such a file.
func readScaleStages(rows []Row, dir string) error {
	f, err := os.Open(filepath.Join(dir, "scale-stages.csv"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read stages: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("read stages: %w", err)
	}
	type run struct {
		txns, rep int
		level     string
	}
	at := make(map[run]int)
	for i, r := range rows {
		at[run{r.Txns, r.Rep, r.Level}] = i
	}
	for _, rec := range recs[min(1, len(recs)):] {
		if len(rec) != 7 {
			return fmt.Errorf("read stages: a line of %d fields, want 7", len(rec))
		}
		txns, _ := strconv.Atoi(rec[0])
		rep, _ := strconv.Atoi(rec[2])
		i, ok := at[run{txns, rep, rec[1]}]
		if !ok {
			continue
		}
		ms, _ := strconv.ParseFloat(rec[5], 64)
		peak, _ := strconv.ParseInt(rec[6], 10, 64)
		rows[i].Stages = append(rows[i].Stages, StageStat{Stage: rec[4], MS: ms, PeakRSS: peak})
	}
	return nil
}
