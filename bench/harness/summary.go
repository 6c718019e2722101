package harness

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Summary returns the headline numbers of rows (by experiment) as
// Markdown tables: medians over the repetitions, isocheck's and each
// comparison's. A note, when given, goes in parentheses in the heading.
func Summary(rows map[string][]Row, m Machine, note string) string {
	var b strings.Builder
	b.WriteString("## Benchmark results")
	if note != "" {
		fmt.Fprintf(&b, " (%s)", note)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Machine: %s, %d cores, %.0f GiB of memory; isocheck %s. Times are wall-clock times of the whole `isocheck check` process (start, parse and check), median of the repetitions (SQL histories: mean of the clients); memory is its peak resident set size.\n",
		m.CPU, m.Cores, float64(m.MemBytes)/(1<<30), m.Version)
	var busiest float64
	for _, rs := range rows {
		for _, r := range rs {
			busiest = max(busiest, r.Load1)
		}
	}
	if busiest > float64(m.Cores) {
		fmt.Fprintf(&b, "\nThe machine was busy with other work during the run (load average up to %.1f on %d cores): times are longer than on an idle machine, and vary more.\n", busiest, m.Cores)
	}
	citePapers(&b, rows)
	if rs := rows["table3"]; len(rs) > 0 {
		b.WriteString("\n### Pruning (Huang et al., PVLDB 2023, Table 3)\n\n")
		b.WriteString("Constraints are made for the pairs of write chains of a key that reachability leaves unordered (default), or for every pair as Huang et al. do (all-pairs).\n\n")
		b.WriteString("| benchmark | constraints | transactions | constraints before → after pruning | unknown dependencies before → after | time | peak memory | verdict |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---|\n")
		for _, g := range groups(rs) {
			if g.Checker != "isocheck" {
				continue
			}
			st := g.median.Stats
			fmt.Fprintf(&b, "| %s | %s | %d | %d → %d | %d → %d | %s | %s | %s |\n", g.Case, g.Variant, g.Txns,
				st.Constraints, st.ConstraintsRemaining, st.UnknownEdges, st.UnknownEdgesRemaining,
				outcome(g), mib(g.median.MaxRSS), g.median.Status)
		}
	}
	if rs := rows["fig9"]; len(rs) > 0 {
		b.WriteString("\n### Ablations (Huang et al., PVLDB 2023, Figure 9): time to check SI\n\n")
		var cases, variants []string
		cell := make(map[[2]string]string)
		for _, g := range groups(rs) {
			if g.Checker != "isocheck" {
				continue
			}
			if !slices.Contains(cases, g.Case) {
				cases = append(cases, g.Case)
			}
			if !slices.Contains(variants, g.Variant) {
				variants = append(variants, g.Variant)
			}
			cell[[2]string{g.Case, g.Variant}] = outcome(g)
		}
		fmt.Fprintf(&b, "| benchmark | %s |\n|---|%s\n", strings.Join(variants, " | "), strings.Repeat("---:|", len(variants)))
		for _, c := range cases {
			fmt.Fprintf(&b, "| %s |", c)
			for _, v := range variants {
				fmt.Fprintf(&b, " %s |", cell[[2]string{c, v}])
			}
			b.WriteString("\n")
		}
	}
	if rs := rows["scaling"]; len(rs) > 0 {
		b.WriteString("\n### Scaling: SI histories of the default workload (20 sessions, 15 operations per transaction, 10k keys, zipfian)\n\n")
		b.WriteString("| transactions | checker | time | parse / construct / prune / encode / solve (s) | peak memory | verdict |\n")
		b.WriteString("|---:|---|---:|---|---:|---|\n")
		for _, g := range groups(rs) {
			st := g.median.Stats
			stages := "–"
			if g.Checker == "isocheck" && g.ok() {
				stages = fmt.Sprintf("%.2f / %.2f / %.2f / %.2f / %.2f", st.ParseMS/1e3, st.ConstructMS/1e3, st.PruneMS/1e3, st.EncodeMS/1e3, st.SolveMS/1e3)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", sizeName(g.Txns), g.Checker, outcome(g), stages, mib(g.median.MaxRSS), g.median.Status)
		}
	}
	if rs := rows["scale"]; len(rs) > 0 {
		b.WriteString("\n### Scale: 20 sessions, 15 operations a transaction, half reads, uniform over as many keys as transactions\n\n")
		b.WriteString("| transactions | level | time | parse / construct / prune / encode / solve (s) | peak memory | µs and KiB a transaction | verdict |\n")
		b.WriteString("|---:|---|---:|---|---:|---:|---|\n")
		for _, g := range groups(rs) {
			st := g.median.Stats
			stages, per := "–", "–"
			if g.ok() {
				stages = fmt.Sprintf("%.1f / %.1f / %.1f / %.1f / %.1f", st.ParseMS/1e3, st.ConstructMS/1e3, st.PruneMS/1e3, st.EncodeMS/1e3, st.SolveMS/1e3)
				per = fmt.Sprintf("%.0f, %.2f", g.median.Wall.Seconds()*1e6/float64(g.Txns), float64(g.median.MaxRSS)/1024/float64(g.Txns))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", sizeName(g.Txns), strings.ToUpper(g.Level), outcome(g), stages, mib(g.median.MaxRSS), per, g.median.Status)
		}
	}
	if rs := rows["fig5"]; len(rs) > 0 {
		b.WriteString("\n### Workload parameters (Huang et al., PVLDB 2023, Figure 5): time to check SI, slowest and fastest point of each axis\n\n")
		b.WriteString("| parameter | fastest | slowest |\n|---|---|---|\n")
		var axes []string
		byAxis := make(map[string][]group)
		for _, g := range groups(rs) {
			if g.Checker != "isocheck" {
				continue
			}
			if !slices.Contains(axes, g.Axis) {
				axes = append(axes, g.Axis)
			}
			byAxis[g.Axis] = append(byAxis[g.Axis], g)
		}
		for _, ax := range axes {
			gs := byAxis[ax]
			lo := slices.MinFunc(gs, func(a, b group) int { return int(a.median.Wall - b.median.Wall) })
			hi := slices.MaxFunc(gs, func(a, b group) int { return int(a.median.Wall - b.median.Wall) })
			fmt.Fprintf(&b, "| %s | %s: %s | %s: %s |\n", ax, lo.X, outcome(lo), hi.X, outcome(hi))
		}
	}
	if rs := rows["mini"]; len(rs) > 0 {
		b.WriteString("\n### Mini-transactions (Wei et al., ICDE 2025, Figure 9) against general transactions: time to check\n\n")
		var sizes, cols []string
		cell := make(map[[2]string]string)
		for _, g := range groups(rs) {
			col := g.Case + " " + strings.ToUpper(g.Level)
			if g.Checker != "isocheck" {
				col = g.Case + ": " + g.Checker
			}
			if !slices.Contains(sizes, sizeName(g.Txns)) {
				sizes = append(sizes, sizeName(g.Txns))
			}
			if !slices.Contains(cols, col) {
				cols = append(cols, col)
			}
			cell[[2]string{sizeName(g.Txns), col}] = outcome(g)
		}
		fmt.Fprintf(&b, "| transactions | %s |\n|---:|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
		for _, s := range sizes {
			fmt.Fprintf(&b, "| %s |", s)
			for _, c := range cols {
				fmt.Fprintf(&b, " %s |", cell[[2]string{s, c}])
			}
			b.WriteString("\n")
		}
	}
	repeatSummary(&b, rows["repeat"])
	onlineSummary(&b, rows["online"])
	sqlGridSummary(&b, rows["sql-sessions"], "SQL histories (Bouajjani et al., CAV 2025, Figure 6): time to check as sessions grow, 10 transactions each")
	sqlGridSummary(&b, rows["sql-txns"], "SQL histories (Bouajjani et al., CAV 2025, Figure 7): time to check as transactions per session grow, 3 sessions")
	sqlNaiveSummary(&b, rows["sql-naive"], append(slices.Clone(rows["sql-sessions"]), rows["sql-txns"]...))
	exploreFig14Summary(&b, rows["explore-fig14"])
	exploreFig15Summary(&b, rows["explore-fig15"])
	return b.String()
}

// papers are the papers whose experiments the harness reproduces in
// shape, each with the experiments that follow it.
var papers = []struct {
	experiments []string
	cite        string
}{
	{[]string{"fig5", "table3", "fig9", "scaling"}, `Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of Snapshot Isolation in Databases" (PolySI), PVLDB 16(6), 2023, Section 5`},
	{[]string{"mini"}, `Wei, Xiao, Yang, Liu, Yin, Chen and Pan, "Boosting End-to-End Database Isolation Checking via Mini-Transactions" (MTC), ICDE 2025, Section V`},
	{[]string{"sql-sessions", "sql-txns", "sql-naive"}, `Bouajjani, Enea and Román-Calvo, "On the Complexity of Checking Mixed Isolation Levels for SQL Transactions", CAV 2025, §6`},
	{[]string{"explore-fig14", "explore-fig15"}, `Bouajjani, Enea and Román-Calvo, "Dynamic Partial Order Reduction for Checking Correctness against Transaction Isolation Levels", PLDI 2023, §7.3`},
}

// citePapers cites in full the papers whose experiments rows holds, so
// that the headings after it can cite them by authors and venue alone.
func citePapers(b *strings.Builder, rows map[string][]Row) {
	var cites []string
	for _, p := range papers {
		if slices.ContainsFunc(p.experiments, func(x string) bool { return len(rows[x]) > 0 }) {
			cites = append(cites, p.cite)
		}
	}
	if len(cites) == 0 {
		return
	}
	b.WriteString("\nThe experiments follow those of:\n\n")
	for _, c := range cites {
		fmt.Fprintf(b, "- %s.\n", c)
	}
}

// outcome is the median time of g, or what stopped it.
func outcome(g group) string {
	switch g.median.Status {
	case StatusSkipped:
		return StatusSkipped
	case StatusTimeout, StatusError, StatusNoVerdict:
		return g.median.Status + " after " + seconds(g.median.Wall)
	}
	return seconds(g.median.Wall)
}

func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}

func mib(b int64) string {
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}
