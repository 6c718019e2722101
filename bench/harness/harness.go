package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
)

// Scale is how large the experiments are.
type Scale int

const (
	// Quick is for `make bench`: small histories, three points an axis,
	// about five minutes on two cores.
	Quick Scale = iota
	// Paper has the paper's sizes (10k-transaction benchmarks, histories
	// up to 1M transactions) and more points an axis.
	Paper
	// Full is Paper with a 10M-transaction history as well.
	Full
	// Tiny is for tests and trying the harness out: histories of a few
	// hundred or thousand transactions (Figure 5's as Quick).
	Tiny
)

// ParseScale returns the scale named tiny, quick, paper or full.
func ParseScale(s string) (Scale, error) {
	switch s {
	case "tiny":
		return Tiny, nil
	case "quick":
		return Quick, nil
	case "paper":
		return Paper, nil
	case "full":
		return Full, nil
	}
	return 0, fmt.Errorf("unknown scale %q (want tiny, quick, paper or full)", s)
}

func (s Scale) String() string {
	switch s {
	case Quick:
		return "quick"
	case Paper:
		return "paper"
	case Full:
		return "full"
	case Tiny:
		return "tiny"
	}
	return fmt.Sprintf("Scale(%d)", int(s))
}

// Config says what Run measures and where it writes.
type Config struct {
	// Out is the directory of the results; it is created.
	Out string
	// Repo is the root of isocheck's module: where the isocheck binary is
	// built from and git describes the version.
	Repo string
	// Binary is an isocheck binary to use instead of building one.
	Binary string
	// Scale selects the sizes.
	Scale Scale
	// Reps is the number of repetitions of each measurement; 0 means 1
	// at Tiny and Quick scales and 3 otherwise.
	Reps int
	// Timeout limits each run of a checker; 0 means none.
	Timeout time.Duration
	// Corpus is the shared corpus directory, for RUBiS, TPC-C and
	// Twitter; those cases are skipped when it is empty.
	Corpus string
	// Experiments are the names of the experiments to run (see
	// Experiments); all of them when empty.
	Experiments []string
	// Compare are other checkers to run beside isocheck on every
	// generated history.
	Compare []Comparison
	// WorkDir holds the binary and the histories; a temporary directory,
	// removed at the end, when empty.
	WorkDir string
	// SQLDB is the database the SQL experiments record their histories
	// on (a DSN for dial.OpenSQL: sqlite://PATH or postgres://...); an
	// SQLite file in the work directory when empty.
	SQLDB string
	// SQLTimeout limits each check of the SQL experiments (Bouajjani, Enea
	// and Román-Calvo, "On the Complexity of Checking Mixed Isolation
	// Levels for SQL Transactions" (CAV 2025), §6, gives each history 60
	// s); Timeout when 0.
	SQLTimeout time.Duration
	// SQLClients is the number of clients (histories) of each point of
	// the SQL experiments; 0 means the scale's (1 at Tiny, 2 at Quick, 5
	// otherwise).
	SQLClients int
	// ExploreTimeout limits each run of explore-ce (RC, RA, CC, CC+SI,
	// CC+SER) in explore-fig14 (Figure 14 of Bouajjani et al., PLDI 2023;
	// passed as `isocheck explore --timeout`); 0 means the scale's: 1 min
	// at tiny and quick scale, else 10 min (the paper's target: no program
	// takes longer).
	ExploreTimeout time.Duration
	// ExploreBaselineTimeout limits the runs of explore-fig14's
	// baselines (explore-ce* from RA, RC and true, and DFS); 0 means the
	// scale's: 15 s at quick scale, else ExploreTimeout.
	ExploreBaselineTimeout time.Duration
	// ExploreFig15Timeout limits each run of explore-fig15; 0 means the
	// scale's: 1 min at tiny and quick scale, else 10 min.
	ExploreFig15Timeout time.Duration
	// Log receives a line per measurement; nil discards them.
	Log io.Writer
}

// Outputs are what Run measured and wrote.
type Outputs struct {
	Machine Machine
	// Files are the paths written, CSV, plots and the summary.
	Files []string
	// Summary is the Markdown summary (also in Out/summary.md).
	Summary string
	// Rows are every measurement, by experiment.
	Rows map[string][]Row
	// Elapsed is how long the run took.
	Elapsed time.Duration
}

// env is the state of one Run.
type env struct {
	cfg     Config
	bin     string
	work    string
	machine Machine
	engines []string
	log     io.Writer
	files   map[string]string // history files by key and format
	sqlDB   db.SQLDatabase    // the SQL experiments' database, once opened
	sqlKind string            // its kind: sqlite or postgres
}

// Run builds isocheck (unless cfg.Binary is set), runs the experiments and
// writes their CSV files, plots and summary to cfg.Out.
func Run(ctx context.Context, cfg Config) (*Outputs, error) {
	names := cfg.Experiments
	if len(names) == 0 {
		names = ExperimentNames()
	}
	for _, n := range names {
		if experimentByName(n) == nil {
			return nil, fmt.Errorf("unknown experiment %q (want one of %s)", n, strings.Join(ExperimentNames(), ", "))
		}
	}
	if cfg.Reps <= 0 {
		cfg.Reps = 1
		if cfg.Scale == Paper || cfg.Scale == Full {
			cfg.Reps = 3
		}
	}
	start := time.Now()
	e := &env{cfg: cfg, log: cfg.Log, files: make(map[string]string)}
	if e.log == nil {
		e.log = io.Discard
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	e.work = cfg.WorkDir
	if e.work == "" {
		dir, err := os.MkdirTemp("", "isobench-")
		if err != nil {
			return nil, fmt.Errorf("work directory: %w", err)
		}
		defer os.RemoveAll(dir)
		e.work = dir
	} else if err := os.MkdirAll(e.work, 0o755); err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	defer func() {
		if e.sqlDB != nil {
			e.sqlDB.Close()
		}
	}()
	e.machine = DetectMachine(ctx, cfg.Repo)
	e.bin = cfg.Binary
	if e.bin == "" {
		e.bin = filepath.Join(e.work, "isocheck")
		if err := build(ctx, cfg.Repo, e.bin); err != nil {
			return nil, err
		}
	}
	engines, err := solverEngines(ctx, e.bin)
	if err != nil {
		// The ablations without engines are still worth having.
		fmt.Fprintf(e.log, "isobench: no --solver engines to compare: %v\n", err)
	}
	e.engines = engines
	fmt.Fprintf(e.log, "isobench: %s scale, %d repetition(s), on %s\n", cfg.Scale, cfg.Reps, e.machine)

	rep := &Outputs{Machine: e.machine, Rows: make(map[string][]Row)}
	for _, n := range names {
		x := experimentByName(n)
		fmt.Fprintf(e.log, "== %s: %s\n", x.Name, x.Title)
		rows, err := x.run(ctx, e)
		rep.Rows[x.Name] = rows
		csvPath := filepath.Join(cfg.Out, x.Name+".csv")
		// The rows measured before an interruption are kept.
		if werr := writeCSVFile(csvPath, e.machine, rows); werr != nil {
			return rep, errors.Join(err, werr)
		}
		rep.Files = append(rep.Files, csvPath)
		if err != nil {
			return rep, fmt.Errorf("experiment %s (%d rows in %s): %w", x.Name, len(rows), csvPath, err)
		}
		plots, err := x.plot(rows, e.machine, cfg.Out)
		if err != nil {
			return rep, fmt.Errorf("experiment %s: %w", x.Name, err)
		}
		rep.Files = append(rep.Files, plots...)
	}
	rep.Elapsed = time.Since(start)
	limits := fmt.Sprintf("%v a check at most", cfg.Timeout)
	if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "explore-") }) {
		limits += fmt.Sprintf("; explore-fig14 %v an exploration, %v a baseline's; explore-fig15 %v an exploration", e.exploreTimeout(), e.exploreBaselineTimeout(), e.fig15Timeout())
	}
	rep.Summary = Summary(rep.Rows, e.machine, cfg.Scale.String()+" scale") +
		fmt.Sprintf("\nThe run (`isobench --scale %s`, %d repetition(s), %s) took %v.\n", cfg.Scale, cfg.Reps, limits, rep.Elapsed.Round(time.Second))
	sumPath := filepath.Join(cfg.Out, "summary.md")
	if err := os.WriteFile(sumPath, []byte(rep.Summary), 0o644); err != nil {
		return rep, fmt.Errorf("write summary: %w", err)
	}
	rep.Files = append(rep.Files, sumPath)
	return rep, nil
}

// Replot reads the CSV files of a previous Run in dir and writes their
// plots and summary again (after a change to the plots, or to draw a run
// of another machine).
func Replot(dir string) (*Outputs, error) {
	rep := &Outputs{Rows: make(map[string][]Row)}
	for _, x := range experiments {
		p := filepath.Join(dir, x.Name+".csv")
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("replot: %w", err)
		}
		m, rows, err := ReadCSV(f)
		f.Close()
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p, err)
		}
		if len(rows) == 0 {
			continue
		}
		rep.Machine, rep.Rows[x.Name] = m, rows
		plots, err := x.plot(rows, m, dir)
		if err != nil {
			return rep, fmt.Errorf("experiment %s: %w", x.Name, err)
		}
		rep.Files = append(rep.Files, plots...)
	}
	if len(rep.Rows) == 0 {
		return rep, fmt.Errorf("replot: no CSV file of an experiment in %s", dir)
	}
	rep.Summary = Summary(rep.Rows, rep.Machine, "")
	sumPath := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(sumPath, []byte(rep.Summary), 0o644); err != nil {
		return rep, fmt.Errorf("write summary: %w", err)
	}
	rep.Files = append(rep.Files, sumPath)
	return rep, nil
}

func writeCSVFile(path string, m Machine, rows []Row) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	if err := WriteCSV(f, m, rows); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// build compiles cmd/isocheck of repo to bin.
func build(ctx context.Context, repo, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/isocheck")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build isocheck in %s: %w\n%s", repo, err, out)
	}
	return nil
}

// enginesRE finds the engines in the help of --solver: "one of [lazy eager]".
var enginesRE = regexp.MustCompile(`(?m)^\s*-solver\b.*\n.*one of \[([^\]]*)\]`)

// solverEngines reads the engines of --solver from `isocheck check
// --help`, so that a new engine is measured without changing the harness.
func solverEngines(ctx context.Context, bin string) ([]string, error) {
	res, err := RunChild(ctx, time.Minute, []string{bin, "check", "--help"})
	if err != nil {
		return nil, err
	}
	return parseEngines(string(res.Stdout) + string(res.Stderr))
}

func parseEngines(help string) ([]string, error) {
	m := enginesRE.FindStringSubmatch(help)
	if m == nil {
		return nil, errors.New("isocheck check --help lists no --solver engines")
	}
	return strings.Fields(m[1]), nil
}

// generated is a history the harness writes itself.
type generated struct {
	key  string                  // distinct for distinct histories
	make func() *history.History // deterministic
}

// historyFile returns the path of the history g written in format f,
// writing it the first time.
func (e *env) historyFile(g generated, f format.Format) (string, error) {
	id := g.key + extension(f)
	if p, ok := e.files[id]; ok {
		return p, nil
	}
	p := filepath.Join(e.work, safeName(id))
	h := g.make()
	out, err := os.Create(p)
	if err != nil {
		return "", fmt.Errorf("write history: %w", err)
	}
	if err := format.Write(out, h, f); err != nil {
		out.Close()
		return "", fmt.Errorf("write history %s: %w", p, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("write history: %w", err)
	}
	e.files[id] = p
	// The history, as large as what the checker will need for it, is
	// garbage now: hand it back rather than hold it while the checker
	// runs beside this process.
	debug.FreeOSMemory()
	return p, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '=' || r == ',' {
			return '_'
		}
		return r
	}, s)
}

// measure runs isocheck with opts on the history at path cfg.Reps times,
// and each comparison on g (when g is not nil) as often, and returns a row
// per run, each a copy of proto with the measurement filled in.
func (e *env) measure(ctx context.Context, proto Row, opts CheckOptions, path string, g *generated) ([]Row, error) {
	var rows []Row
	for rep := 1; rep <= e.cfg.Reps; rep++ {
		m, err := MeasureCheck(ctx, e.cfg.Timeout, e.bin, opts, path)
		if err != nil {
			return rows, err
		}
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
		r := proto
		r.Checker, r.Level, r.Variant, r.Rep, r.Measurement = "isocheck", opts.level(), opts.Variant(), rep, m
		if r.Txns == 0 {
			r.Txns = m.Stats.Transactions
		}
		e.logRow(r)
		rows = append(rows, r)
		if m.Status == StatusTimeout {
			break // a repetition would time out as well
		}
	}
	if g == nil {
		return rows, nil
	}
	for _, c := range e.cfg.Compare {
		p, err := e.historyFile(*g, c.Format)
		if err != nil {
			return rows, err
		}
		for rep := 1; rep <= e.cfg.Reps; rep++ {
			m, err := MeasureCommand(ctx, e.cfg.Timeout, c.Argv(p))
			if err != nil {
				return rows, err
			}
			if ctx.Err() != nil {
				return rows, ctx.Err()
			}
			r := proto
			r.Checker, r.Level, r.Variant, r.Rep, r.Measurement = c.Command, opts.level(), "", rep, m
			e.logRow(r)
			rows = append(rows, r)
			if m.Status == StatusTimeout {
				break
			}
		}
	}
	return rows, nil
}

func (o CheckOptions) level() string {
	if o.Level == "" {
		return "si"
	}
	return o.Level
}

func (e *env) logRow(r Row) {
	what := r.Case
	if r.Variant != "" && r.Variant != "default" {
		what += " " + r.Variant
	}
	line := fmt.Sprintf("  %-28s %-5s %-10s %8.2fs %7.0f MiB", what, r.Level, r.Status, r.Wall.Seconds(), float64(r.MaxRSS)/(1<<20))
	if r.Checker != "isocheck" {
		line += "  " + r.Checker
	} else if r.Stats.Constraints > 0 || r.Stats.UnknownEdges > 0 {
		line += fmt.Sprintf("  constraints %d→%d, unknown %d→%d", r.Stats.Constraints, r.Stats.ConstraintsRemaining, r.Stats.UnknownEdges, r.Stats.UnknownEdgesRemaining)
	}
	if r.Detail != "" {
		line += "  (" + r.Detail + ")"
	}
	fmt.Fprintln(e.log, line)
}

// ExperimentNames are the experiments Run knows, in the order it runs
// them.
func ExperimentNames() []string {
	var names []string
	for _, x := range experiments {
		names = append(names, x.Name)
	}
	return names
}

func experimentByName(name string) *experiment {
	i := slices.IndexFunc(experiments, func(x *experiment) bool { return x.Name == name })
	if i < 0 {
		return nil
	}
	return experiments[i]
}
