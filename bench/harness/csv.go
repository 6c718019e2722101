package harness

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Row is one measurement of an experiment.
type Row struct {
	Experiment string // fig5, table3, fig9, scaling, mini
	Case       string // the history: GeneralRW, TPCC, sessions=20, ...
	Axis       string // the parameter that varies (fig5), or ""
	X          string // its value, or the history's size
	Variant    string // the ablation: default, no-prune, ...
	Checker    string // "isocheck", or a comparison's command
	Level      string // the level checked
	Rep        int    // repetition, from 1
	Txns       int    // transactions in the history
	Measurement
}

// Header is the CSV header of rows.
var header = []string{
	"experiment", "case", "axis", "x", "variant", "checker", "level", "rep", "txns",
	"status", "exit_code", "wall_ms", "max_rss_bytes",
	"parse_ms", "construct_ms", "prune_ms", "encode_ms", "solve_ms",
	"constraints", "constraints_remaining", "unknown_edges", "unknown_edges_remaining",
	"cpu", "cores", "mem_bytes", "version",
}

// WriteCSV writes rows with a header line. Every row carries the machine
// and isocheck's version, so that a file read on its own says where its
// numbers come from.
func WriteCSV(w io.Writer, m Machine, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	ms := func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
	itoa := strconv.Itoa
	for _, r := range rows {
		s := r.Stats
		rec := []string{
			r.Experiment, r.Case, r.Axis, r.X, r.Variant, r.Checker, r.Level, itoa(r.Rep), itoa(r.Txns),
			r.Status, itoa(r.ExitCode), ms(float64(r.Wall.Microseconds()) / 1000), strconv.FormatInt(r.MaxRSS, 10),
			ms(s.ParseMS), ms(s.ConstructMS), ms(s.PruneMS), ms(s.EncodeMS), ms(s.SolveMS),
			itoa(s.Constraints), itoa(s.ConstraintsRemaining), itoa(s.UnknownEdges), itoa(s.UnknownEdgesRemaining),
			m.CPU, itoa(m.Cores), strconv.FormatInt(m.MemBytes, 10), m.Version,
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}
