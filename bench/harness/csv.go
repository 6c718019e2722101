package harness

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// Row is one measurement of an experiment.
type Row struct {
	Experiment string // fig5, table3, fig9, scaling, mini, sql-sessions, sql-txns, sql-naive, explore-fig14, explore-fig15
	Case       string // the history: GeneralRW, TPCC, sessions=20, ...; the application of a SQL history or of an explored program
	Axis       string // the parameter that varies (fig5, sql-*), or ""
	X          string // its value, or the history's size
	Variant    string // the ablation: default, no-prune, ..., naive; an exploration's configuration: CC, CC+SI, RA+CC, DFS(CC), ...
	Checker    string // "isocheck", or a comparison's command
	Level      string // the level checked; for a SQL history checked at its recorded levels, their mix (ser+rc, ...)
	Rep        int    // repetition, from 1
	Txns       int    // transactions in the history
	DB         string // the database a SQL history was recorded on: sqlite or postgres; "" for the others
	Seed       int64  // the seed of a SQL history's client (one client, one history) or of an explored program; 0 for the others
	Measurement
}

// Header is the CSV header of rows.
var header = []string{
	"experiment", "case", "axis", "x", "variant", "checker", "level", "rep", "txns",
	"status", "exit_code", "wall_ms", "max_rss_bytes",
	"parse_ms", "construct_ms", "prune_ms", "encode_ms", "solve_ms",
	"constraints", "constraints_remaining", "unknown_edges", "unknown_edges_remaining",
	"load1", "cpu", "cores", "mem_bytes", "version",
	"db", "seed", "steps", "conflicts", "check_ms",
	"histories", "end_states", "blocked", "failed",
}

// oldHeader is the header before the columns of SQL histories (db to
// check_ms) were added, and sqlHeader the one before the columns of
// explorations (histories to failed); ReadCSV reads such files too.
var (
	oldHeader = header[:slices.Index(header, "version")+1]
	sqlHeader = header[:slices.Index(header, "check_ms")+1]
)

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
			strconv.FormatFloat(r.Load1, 'f', 2, 64), m.CPU, itoa(m.Cores), strconv.FormatInt(m.MemBytes, 10), m.Version,
			r.DB, strconv.FormatInt(r.Seed, 10), itoa(s.Steps), itoa(s.Conflicts), ms(float64(s.Elapsed.Microseconds()) / 1000),
			itoa(s.Histories), itoa(s.EndStates), itoa(s.Blocked), itoa(s.Failed),
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

// ReadCSV reads rows written by WriteCSV, and the machine of the first.
func ReadCSV(r io.Reader) (Machine, []Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // checked below: the old header or the new
	recs, err := cr.ReadAll()
	if err != nil {
		return Machine{}, nil, fmt.Errorf("read csv: %w", err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) && !slices.Equal(recs[0], sqlHeader) && !slices.Equal(recs[0], oldHeader) {
		return Machine{}, nil, errors.New("read csv: not a harness CSV file (its header differs)")
	}
	width := len(recs[0])
	var m Machine
	var rows []Row
	for i, rec := range recs[1:] {
		if len(rec) != width {
			return m, rows, fmt.Errorf("read csv: row %d: %d fields, want %d", i+1, len(rec), width)
		}
		p := &fieldParser{rec: rec}
		r := Row{
			Experiment: p.str(), Case: p.str(), Axis: p.str(), X: p.str(), Variant: p.str(), Checker: p.str(), Level: p.str(),
			Rep: p.int(), Txns: p.int(),
		}
		r.Status, r.ExitCode = p.str(), p.int()
		r.Wall = time.Duration(p.float() * float64(time.Millisecond))
		r.MaxRSS = int64(p.int())
		r.Stats = Stats{ParseMS: p.float(), ConstructMS: p.float(), PruneMS: p.float(), EncodeMS: p.float(), SolveMS: p.float(),
			Constraints: p.int(), ConstraintsRemaining: p.int(), UnknownEdges: p.int(), UnknownEdgesRemaining: p.int(), Transactions: r.Txns}
		r.Load1 = p.float()
		m = Machine{CPU: p.str(), Cores: p.int(), MemBytes: int64(p.int()), Version: p.str()}
		if width >= len(sqlHeader) {
			r.DB, r.Seed = p.str(), int64(p.int())
			r.Stats.Steps, r.Stats.Conflicts = p.int(), p.int()
			r.Stats.Elapsed = time.Duration(p.float() * float64(time.Millisecond))
			if r.DB != "" {
				r.Stats.SQLTxns = r.Txns
			}
		}
		if width == len(header) {
			r.Stats.Histories, r.Stats.EndStates, r.Stats.Blocked, r.Stats.Failed = p.int(), p.int(), p.int(), p.int()
		}
		if p.err != nil {
			return m, rows, fmt.Errorf("read csv: row %d: %w", i+1, p.err)
		}
		rows = append(rows, r)
	}
	return m, rows, nil
}

// fieldParser reads the fields of a record in order, keeping the first
// error.
type fieldParser struct {
	rec []string
	i   int
	err error
}

func (p *fieldParser) str() string {
	s := p.rec[p.i]
	p.i++
	return s
}

func (p *fieldParser) int() int {
	s := p.str()
	n, err := strconv.Atoi(s)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %s: %w", header[p.i-1], err)
	}
	return n
}

func (p *fieldParser) float() float64 {
	s := p.str()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %s: %w", header[p.i-1], err)
	}
	return f
}
