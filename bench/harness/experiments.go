package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/workload"
)

// experiment is one of the paper's figures or tables.
type experiment struct {
	Name  string
	Title string
	run   func(ctx context.Context, e *env) ([]Row, error)
	plot  func(rows []Row, m Machine, dir string) ([]string, error)
}

var experiments = []*experiment{
	{Name: "fig5", Title: "time per stage as one workload parameter varies (Huang et al., PVLDB 2023, Figure 5)", run: runFig5, plot: plotFig5},
	{Name: "table3", Title: "constraints and unknown dependencies before and after pruning (Huang et al., PVLDB 2023, Table 3)", run: runTable3, plot: plotTable3},
	{Name: "fig9", Title: "ablations: no pruning, all pairs, solver engines (Huang et al., PVLDB 2023, Figure 9)", run: runFig9, plot: plotFig9},
	{Name: "scaling", Title: "time and peak memory as the history grows", run: runScaling, plot: plotScaling},
	{Name: "scale", Title: "time and peak memory of each stage from 100k to 10M transactions, at SI, SER and CC; violating histories of 200k and 1M at every level", run: runScale, plot: plotScale},
	{Name: "mini", Title: "mini-transactions against general transactions (Wei et al., ICDE 2025, Figure 9)", run: runMini, plot: plotMini},
	{Name: "repeat", Title: "time and peak memory as values repeat per key: reads with several candidate writers", run: runRepeat, plot: plotRepeat},
	{Name: "online", Title: "checking while the history is written: a simulated store's stream at 50,000 transactions a second into check --follow at SER, SI, CC and RC; memory and transactions over the stream's time", run: runOnline, plot: plotOnline},
	{Name: "sql-sessions", Title: "SQL histories at their recorded levels as sessions grow (Bouajjani et al., CAV 2025, Figure 6)", run: runSQLSessions, plot: plotSQL},
	{Name: "sql-txns", Title: "SQL histories at their recorded levels as transactions per session grow (Bouajjani et al., CAV 2025, Figure 7)", run: runSQLTxns, plot: plotSQL},
	{Name: "sql-naive", Title: "SQL histories recorded at RC checked at SER, against the naive baseline (Bouajjani et al., CAV 2025, §6)", run: runSQLNaive, plot: plotSQLNaive},
	{Name: "explore-fig14", Title: "model checking: explore-ce under RC, RA, CC, SI, SER against its baselines (Bouajjani et al., PLDI 2023, Figure 14)", run: runExploreFig14, plot: plotExploreFig14},
	{Name: "explore-fig15", Title: "model checking: explore-ce under CC as sessions and transactions grow (Bouajjani et al., PLDI 2023, Figure 15)", run: runExploreFig15, plot: plotExploreFig15},
}

// defaultWorkload is the default general workload of Huang, Liu, Chen, Wei,
// Basin, Li and Pan, "Efficient Black-box Checking of Snapshot Isolation in
// Databases" (PolySI, PVLDB 16(6), 2023), Section 5, run by a simulated
// snapshot-isolation store.
func defaultWorkload() histgen.LargeConfig {
	return histgen.LargeConfig{Sessions: 20, TxnsPerSession: 100, OpsPerTxn: 15, Keys: 10000, ReadProportion: 0.5, Dist: workload.Zipf, Seed: 1, Store: histgen.SnapshotIsolation}
}

// large is the generated history of cfg.
func large(cfg histgen.LargeConfig) generated {
	key := fmt.Sprintf("general-%d-%d-%d-%d-%g-%v-%d-%d", cfg.Sessions, cfg.TxnsPerSession, cfg.OpsPerTxn, cfg.Keys, cfg.ReadProportion, cfg.Dist, cfg.Seed, cfg.Store)
	return generated{key: key, make: func() *history.History { return histgen.Large(cfg) }}
}

// axis is one panel of Figure 5: a parameter and its values.
type axis struct {
	name   string
	values []string
	set    func(cfg *histgen.LargeConfig, v string)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func fig5Axes(s Scale) []axis {
	pick := func(quick, paper []string) []string {
		if s == Quick || s == Tiny {
			return quick
		}
		return paper
	}
	return []axis{
		{"sessions", pick([]string{"5", "20", "40"}, []string{"5", "10", "20", "30", "40", "50"}),
			func(c *histgen.LargeConfig, v string) { c.Sessions = atoi(v) }},
		{"txns/session", pick([]string{"50", "100", "200"}, []string{"50", "100", "200", "300", "400", "500"}),
			func(c *histgen.LargeConfig, v string) { c.TxnsPerSession = atoi(v) }},
		{"ops/txn", pick([]string{"5", "15", "30"}, []string{"5", "10", "15", "20", "25", "30"}),
			func(c *histgen.LargeConfig, v string) { c.OpsPerTxn = atoi(v) }},
		{"read proportion", pick([]string{"0.1", "0.5", "0.9"}, []string{"0.05", "0.25", "0.5", "0.75", "0.95"}),
			func(c *histgen.LargeConfig, v string) { c.ReadProportion, _ = strconv.ParseFloat(v, 64) }},
		{"keys", pick([]string{"1000", "10000", "100000"}, []string{"1000", "2000", "5000", "10000", "50000", "100000"}),
			func(c *histgen.LargeConfig, v string) { c.Keys = atoi(v) }},
		{"distribution", []string{"uniform", "zipf", "hotspot"},
			func(c *histgen.LargeConfig, v string) { c.Dist, _ = workload.ParseDistribution(v) }},
	}
}

// runFig5 varies one parameter at a time around the defaults and checks SI,
// as Figure 5 of Huang et al. (PVLDB 2023) does. The default point is
// measured once and shared by every axis.
func runFig5(ctx context.Context, e *env) ([]Row, error) {
	var rows []Row
	byKey := make(map[string][]Row)
	for _, ax := range fig5Axes(e.cfg.Scale) {
		for _, v := range ax.values {
			cfg := defaultWorkload()
			ax.set(&cfg, v)
			g := large(cfg)
			proto := Row{Experiment: "fig5", Case: ax.name + "=" + v, Axis: ax.name, X: v, Txns: cfg.Sessions * cfg.TxnsPerSession}
			if prev, ok := byKey[g.key]; ok {
				for _, r := range prev {
					r.Case, r.Axis, r.X = proto.Case, proto.Axis, proto.X
					rows = append(rows, r)
				}
				continue
			}
			path, err := e.historyFile(g, format.JSONL)
			if err != nil {
				return rows, err
			}
			got, err := e.measure(ctx, proto, CheckOptions{Level: "si"}, path, &g)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
			byKey[g.key] = got
		}
	}
	return rows, nil
}

// benchmark is a history of Table 3 and Figure 9.
type benchmark struct {
	name string
	gen  *generated // a generated history, or
	path string     // a corpus history
}

// benchmarks are the six of Huang et al. (PVLDB 2023): GeneralRH, GeneralRW
// and GeneralWH (25 sessions × 400 transactions × 8 operations, 95%, 50%
// and 30% reads;
// 25 × 100 × 8 at Quick scale, 25 × 10 × 8 at Tiny) and the corpus's
// RUBiS, TPC-C and Twitter, when the corpus is there.
func (e *env) benchmarks() []benchmark {
	txns := 400
	switch e.cfg.Scale {
	case Quick:
		txns = 100
	case Tiny:
		txns = 10
	}
	var bs []benchmark
	for _, w := range []struct {
		name  string
		reads float64
	}{{"GeneralRH", 0.95}, {"GeneralRW", 0.5}, {"GeneralWH", 0.3}} {
		cfg := defaultWorkload()
		cfg.Sessions, cfg.TxnsPerSession, cfg.OpsPerTxn, cfg.ReadProportion = 25, txns, 8, w.reads
		g := large(cfg)
		bs = append(bs, benchmark{name: w.name, gen: &g})
	}
	if e.cfg.Corpus == "" {
		fmt.Fprintln(e.log, "  (no corpus: RUBiS, TPC-C and Twitter skipped)")
		return bs
	}
	for _, c := range []struct{ name, path string }{
		{"RUBiS", "polysi/cobra-rubis"},
		{"TPC-C", "polysi/cobra-tpcc"},
		{"Twitter", "polysi/cobra-twitter"},
	} {
		p := filepath.Join(e.cfg.Corpus, c.path)
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(e.log, "  (%s missing: %v)\n", c.name, err)
			continue
		}
		bs = append(bs, benchmark{name: c.name, path: p})
	}
	return bs
}

// file returns the path of b's history in native JSONL (or the corpus's
// own format).
func (e *env) benchmarkFile(b benchmark) (string, error) {
	if b.gen == nil {
		return b.path, nil
	}
	return e.historyFile(*b.gen, format.JSONL)
}

func runTable3(ctx context.Context, e *env) ([]Row, error) {
	var rows []Row
	for _, b := range e.benchmarks() {
		path, err := e.benchmarkFile(b)
		if err != nil {
			return rows, err
		}
		// isocheck orders the write chains of a key by reachability
		// before it makes constraints; --all-pairs constrains every pair,
		// as Huang et al. (PVLDB 2023) do, whose Table 3 counts those.
		for _, v := range []CheckOptions{{Level: "si"}, {Level: "si", AllPairs: true}} {
			var g *generated
			if !v.AllPairs {
				g = b.gen
			}
			got, err := e.measure(ctx, Row{Experiment: "table3", Case: b.name}, v, path, g)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
		}
	}
	return rows, nil
}

// fig9Variants are the ablations: the default, without pruning, with every
// pair of write chains constrained, both, and each solver engine.
func fig9Variants(engines []string) []CheckOptions {
	vs := []CheckOptions{{}, {NoPrune: true}, {AllPairs: true}, {NoPrune: true, AllPairs: true}}
	for _, en := range engines {
		vs = append(vs, CheckOptions{Solver: en})
	}
	return vs
}

func runFig9(ctx context.Context, e *env) ([]Row, error) {
	var rows []Row
	for _, b := range e.benchmarks() {
		path, err := e.benchmarkFile(b)
		if err != nil {
			return rows, err
		}
		defaultTimedOut := false
		for _, v := range fig9Variants(e.engines) {
			v.Level = "si"
			proto := Row{Experiment: "fig9", Case: b.name}
			if defaultTimedOut && (v.NoPrune || v.AllPairs) {
				// Without pruning, or with more constraints, there is
				// only more to do than in the run that timed out.
				r := proto
				r.Checker, r.Level, r.Variant, r.Rep = "isocheck", v.level(), v.Variant(), 1
				r.Status, r.Detail = StatusSkipped, "the default timed out"
				e.logRow(r)
				rows = append(rows, r)
				continue
			}
			var g *generated
			if v.Variant() == "default" {
				g = b.gen // comparisons once per benchmark
			}
			got, err := e.measure(ctx, proto, v, path, g)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
			if v.Variant() == "default" && len(got) > 0 && got[0].Status == StatusTimeout {
				defaultTimedOut = true
			}
		}
	}
	return rows, nil
}

// scalingSizes are the history sizes of the scaling experiment.
func scalingSizes(s Scale) []int {
	switch s {
	case Tiny:
		return []int{1000, 2000}
	case Quick:
		return []int{10_000, 100_000}
	case Paper:
		return []int{10_000, 100_000, 1_000_000}
	}
	return []int{10_000, 100_000, 1_000_000, 10_000_000}
}

// scalingWorkload is the default workload with n transactions: 20
// sessions of n/20.
func scalingWorkload(n int) histgen.LargeConfig {
	cfg := defaultWorkload()
	cfg.TxnsPerSession = n / cfg.Sessions
	return cfg
}

func runScaling(ctx context.Context, e *env) ([]Row, error) {
	var rows []Row
	for _, n := range scalingSizes(e.cfg.Scale) {
		g := large(scalingWorkload(n))
		path, err := e.historyFile(g, format.JSONL)
		if err != nil {
			return rows, err
		}
		got, err := e.measure(ctx, Row{Experiment: "scaling", Case: sizeName(n), X: strconv.Itoa(n), Txns: n}, CheckOptions{Level: "si"}, path, &g)
		rows = append(rows, got...)
		if err != nil {
			return rows, err
		}
		e.forget(g)
	}
	return rows, nil
}

// forget removes the files of g, which no later experiment reads.
func (e *env) forget(g generated) {
	for _, f := range []format.Format{format.JSONL, format.Text, format.DBCop, format.EDN} {
		id := g.key + extension(f)
		if p, ok := e.files[id]; ok {
			os.Remove(p)
			delete(e.files, id)
		}
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// runMini checks histories of mini-transactions (Wei, Xiao, Yang, Liu, Yin,
// Chen and Pan, "Boosting End-to-End Database Isolation Checking via
// Mini-Transactions" (MTC, ICDE 2025), Section III: every write after a
// read of its key, so the reads fix every version order) at SER, SI and
// SSER, beside general histories of the same size at SI.
func runMini(ctx context.Context, e *env) ([]Row, error) {
	sizes := scalingSizes(e.cfg.Scale)
	if len(sizes) > 3 {
		sizes = sizes[:3]
	}
	var rows []Row
	for _, n := range sizes {
		mini := generated{
			key: fmt.Sprintf("mini-%d", n),
			make: func() *history.History {
				return histgen.Mini(histgen.MiniConfig{Sessions: 20, Txns: n, Keys: n / 10, Seed: 1})
			},
		}
		path, err := e.historyFile(mini, format.JSONL)
		if err != nil {
			return rows, err
		}
		for i, l := range []string{"ser", "si", "sser"} {
			var g *generated
			if i == 0 {
				g = &mini
			}
			got, err := e.measure(ctx, Row{Experiment: "mini", Case: "mini", X: strconv.Itoa(n), Txns: n}, CheckOptions{Level: l}, path, g)
			rows = append(rows, got...)
			if err != nil {
				return rows, err
			}
		}
		e.forget(mini)
		gen := large(scalingWorkload(n))
		if path, err = e.historyFile(gen, format.JSONL); err != nil {
			return rows, err
		}
		got, err := e.measure(ctx, Row{Experiment: "mini", Case: "general", X: strconv.Itoa(n), Txns: n}, CheckOptions{Level: "si"}, path, nil)
		rows = append(rows, got...)
		if err != nil {
			return rows, err
		}
		e.forget(gen)
	}
	return rows, nil
}
