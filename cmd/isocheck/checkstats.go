package main

import (
	"fmt"
	"io"
	"time"

	"github.com/isocheck/isocheck/check"
)

// stats is the "stats" object of --json and the table of --stats: the
// time of each stage and the size of the problem. On a run that stopped,
// Stage says where, and the counts are those reached.
type stats struct {
	// Stage, StageDone, StageTotal and StageUnit: the stage a stopped run
	// reached and how far it got in it (StageTotal 0: unknown).
	Stage      string `json:"stage,omitempty"`
	StageDone  int64  `json:"stage_done,omitempty"`
	StageTotal int64  `json:"stage_total,omitempty"`
	StageUnit  string `json:"stage_unit,omitempty"`

	ParseMS     float64 `json:"parse_ms"`
	ConstructMS float64 `json:"construct_ms"`
	PruneMS     float64 `json:"prune_ms"`
	EncodeMS    float64 `json:"encode_ms"`
	SolveMS     float64 `json:"solve_ms"`
	ExplainMS   float64 `json:"explain_ms"`

	// Transactions counts the committed transactions checked.
	Transactions int `json:"transactions"`
	// KnownEdges counts the dependencies known before pruning.
	KnownEdges int `json:"known_edges"`
	// Constraints counts the constraints on the order of writes before
	// pruning, ConstraintsPruned those pruning decided, and
	// ConstraintsRemaining those left for the solver; likewise for the
	// edges of the constraints.
	Constraints           int `json:"constraints"`
	ConstraintsPruned     int `json:"constraints_pruned"`
	ConstraintsRemaining  int `json:"constraints_remaining"`
	UnknownEdges          int `json:"unknown_edges"`
	UnknownEdgesRemaining int `json:"unknown_edges_remaining"`
	PruneRounds           int `json:"prune_rounds"`
	SolverRounds          int `json:"solver_rounds"`
	// SolverCyclesBlocked counts the cycles the solver forbade.
	SolverCyclesBlocked int `json:"solver_cycles_blocked"`
	// Choices counts the reads of values several transactions wrote,
	// which may have read from any of them; ChoiceRounds the choices of
	// their writers the check tried.
	Choices      int `json:"choices"`
	ChoiceRounds int `json:"choice_rounds"`
	// Stages are the stages of the run, reading included, in order: the
	// time of each, and the peak memory of the process at its end.
	Stages []stageStat `json:"stages,omitempty"`
	// Follow is what check --follow did while the input was written.
	Follow *followStats `json:"follow,omitempty"`
	// InputNotes say what reading the history inferred or left out (see
	// inputNotes).
	InputNotes []string `json:"input_notes,omitempty"`
}

// stageStat is one stage of a run.
type stageStat struct {
	Stage string  `json:"stage"`
	MS    float64 `json:"ms"`
	// PeakRSS is the peak resident memory of the process, as the
	// operating system counts it, at the stage's end.
	PeakRSS int64 `json:"peak_rss_bytes"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func newStats(res *check.Result, parse, explain time.Duration) stats {
	s := res.Stats
	return stats{
		ParseMS:               ms(parse),
		ConstructMS:           ms(s.Construct),
		PruneMS:               ms(s.Prune),
		EncodeMS:              ms(s.Encode),
		SolveMS:               ms(s.Solve),
		ExplainMS:             ms(explain),
		Transactions:          s.Txns,
		KnownEdges:            s.KnownEdges,
		Constraints:           s.Constraints,
		ConstraintsPruned:     s.Constraints - s.ConstraintsAfter,
		ConstraintsRemaining:  s.ConstraintsAfter,
		UnknownEdges:          s.UnknownEdges,
		UnknownEdgesRemaining: s.UnknownEdgesAfter,
		PruneRounds:           s.PruneRounds,
		SolverRounds:          s.SolverRounds,
		SolverCyclesBlocked:   s.SolverClauses,
		Choices:               s.Choices,
		ChoiceRounds:          s.ChoiceRounds,
	}
}

// stopped records the stage a stopped job reached.
func (s *stats) stopped(j *job) {
	snap := j.tracker.Snapshot()
	s.Stage, s.StageDone, s.StageTotal, s.StageUnit = snap.Stage, snap.Done, snap.Total, snap.Unit
}

func (s *stats) write(w io.Writer) {
	fmt.Fprintln(w, "stats:")
	if s.Stage != "" {
		fmt.Fprintf(w, "  %-24s %s (%s of %s %s)\n", "stopped in stage", s.Stage, count(s.StageDone), count(s.StageTotal), s.StageUnit)
	}
	rows := []struct {
		name string
		v    any
	}{
		{"parse", s.ParseMS}, {"construct", s.ConstructMS}, {"prune", s.PruneMS},
		{"encode", s.EncodeMS}, {"solve", s.SolveMS}, {"explain", s.ExplainMS},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-24s %v ms\n", r.name, r.v)
	}
	counts := []struct {
		name string
		v    int
	}{
		{"transactions", s.Transactions}, {"known edges", s.KnownEdges},
		{"constraints", s.Constraints}, {"constraints pruned", s.ConstraintsPruned},
		{"constraints remaining", s.ConstraintsRemaining}, {"unknown edges", s.UnknownEdges},
		{"unknown edges remaining", s.UnknownEdgesRemaining}, {"prune rounds", s.PruneRounds},
		{"solver rounds", s.SolverRounds}, {"solver cycles blocked", s.SolverCyclesBlocked},
		{"reads of repeated values", s.Choices}, {"choices of writers tried", s.ChoiceRounds},
	}
	for _, c := range counts {
		fmt.Fprintf(w, "  %-24s %s\n", c.name, count(int64(c.v)))
	}
	if f := s.Follow; f != nil {
		fmt.Fprintf(w, "  %-24s %s lines, %s windows in %v ms (the largest %s lines), %s checks of everything so far in %v ms\n",
			"followed", count(int64(f.Lines)), count(int64(f.Windows)), f.WindowMS, count(int64(f.LargestWindow)), count(int64(f.Prefixes)), f.PrefixMS)
	}
	writeStages(w, s.Stages)
}

// writeStages prints the table of the stages a run went through, if any,
// under --stats.
func writeStages(w io.Writer, stages []stageStat) {
	if len(stages) == 0 {
		return
	}
	fmt.Fprintf(w, "  %-24s %12s %14s\n", "stage", "time", "peak memory")
	for _, st := range stages {
		fmt.Fprintf(w, "  %-24s %9.0f ms %14s\n", st.Stage, st.MS, formatBytes(st.PeakRSS))
	}
}
