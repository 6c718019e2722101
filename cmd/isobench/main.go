// Command isobench runs isocheck's benchmark harness on this machine: the
// experiments of Huang, Liu, Chen, Wei, Basin, Li and Pan, "Efficient
// Black-box Checking of Snapshot Isolation in Databases" (PolySI,
// PVLDB 16(6), 2023) (Section 5: Figure 5, Table 3, Figure 9, the growth of
// time and memory with the history's size); a comparison of
// mini-transactions after Wei, Xiao, Yang, Liu, Yin, Chen and Pan,
// "Boosting End-to-End Database Isolation Checking via Mini-Transactions"
// (MTC, ICDE 2025) (Figure 9); the experiments on SQL histories with a
// level per transaction of Bouajjani, Enea and Román-Calvo, "On the
// Complexity of Checking Mixed Isolation Levels for SQL Transactions"
// (CAV 2025) (§6: Figures 6 and 7, and the naive baseline); and the model
// checking of transactional programs (`isocheck explore`) of Bouajjani,
// Enea and Román-Calvo, "Dynamic Partial Order Reduction for Checking
// Correctness against Transaction Isolation Levels" (PLDI 2023) (§7.3:
// Figures 14 and 15). It runs each measurement in a child process, and
// writes a CSV file per experiment, plots (PNG and SVG) and a Markdown
// summary to --out.
//
// Usage:
//
//	isobench [--scale tiny|quick|paper|full] [--out DIR] [--reps N] [--timeout D]
//	         [--experiments fig5,table3,fig9,scaling,mini,repeat,scale,sql-sessions,sql-txns,sql-naive,explore-fig14,explore-fig15] [--corpus DIR]
//	         [--compare-format text|dbcop|jsonl|edn] [--compare 'CMD {}']...
//	         [--binary ISOCHECK] [--work DIR] [--sql-db DSN] [--sql-clients N] [--sql-timeout D]
//	         [--explore-timeout D] [--explore-baseline-timeout D] [--explore-fig15-timeout D]
//	isobench --replot DIR
//
// --compare runs another checker on every generated history, written in
// the format of the last --compare-format before it (or, when none comes
// before it, the last one given; text by default), with {} replaced by the
// file's path; its time, peak memory and exit status go in the CSV files
// beside isocheck's.
//
// The SQL experiments record their histories (BenchBase's TPC-C and
// Twitter, package sqlrun) on the database of --sql-db, else of
// $ISOCHECK_POSTGRES_DSN, else on a fresh SQLite file in the work
// directory; the CSV files' db column says which.
//
// `make bench` runs the quick scale (a few minutes on two cores) into
// bench/results; `make bench-full` runs the full one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/bench/harness"
	"github.com/isocheck/isocheck/format"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// compareFlags gathers the repeatable --compare and --compare-format.
type compareFlags struct {
	list      []harness.Comparison
	explicit  []bool // whether a --compare-format came before list[i]
	current   format.Format
	formatSet bool
}

func (c *compareFlags) compare(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty command")
	}
	f := c.current
	if f == "" {
		f = format.Text
	}
	c.list = append(c.list, harness.Comparison{Command: s, Format: f})
	c.explicit = append(c.explicit, c.formatSet)
	return nil
}

func (c *compareFlags) format(s string) error {
	f, err := harness.ParseCompareFormat(s)
	if err != nil {
		return err
	}
	c.current, c.formatSet = f, true
	return nil
}

// comparisons returns the --compare flags, those without a format before
// them taking the last one given.
func (c *compareFlags) comparisons() []harness.Comparison {
	for i := range c.list {
		if !c.explicit[i] && c.formatSet {
			c.list[i].Format = c.current
		}
	}
	return c.list
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("isobench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "bench/results", "directory of the results (CSV, plots, summary.md)")
	scale := fs.String("scale", "paper", "sizes: tiny (a smoke test), quick (make bench, a few minutes), paper (the paper's sizes, histories up to 1M transactions) or full (paper and 10M)")
	full := fs.Bool("full", false, "same as --scale full")
	reps := fs.Int("reps", 0, "repetitions of each measurement (default 1 at quick scale, else 3)")
	timeout := fs.Duration("timeout", 10*time.Minute, "limit of each checker run, after which its process group is killed and the run recorded as timeout (0: none)")
	exps := fs.String("experiments", strings.Join(harness.ExperimentNames(), ","), "experiments to run, comma-separated")
	corpusDir := fs.String("corpus", "", "the shared corpus, for RUBiS, TPC-C and Twitter (default $ISOCHECK_CORPUS, else ../shared/corpus beside the repository)")
	binary := fs.String("binary", "", "an isocheck binary to measure (default: build ./cmd/isocheck of the repository)")
	work := fs.String("work", "", "directory for the binary and the histories, kept afterwards (default: a temporary one, removed)")
	sqlDB := fs.String("sql-db", "", "the database the SQL experiments record their histories on: sqlite://PATH or postgres://... (default $ISOCHECK_POSTGRES_DSN, else a fresh SQLite file in the work directory)")
	sqlTimeout := fs.Duration("sql-timeout", 0, "limit of each check of the SQL experiments (default --timeout; the paper on mixed isolation levels for SQL, by Bouajjani, Enea and Román-Calvo, gives each history 60s)")
	sqlClients := fs.Int("sql-clients", 0, "clients (histories, seeds 1..N) of each point of the SQL experiments (default 1 at tiny scale, 2 at quick, 5 otherwise)")
	exploreTimeout := fs.Duration("explore-timeout", 0, "limit of each run of explore-ce in explore-fig14 (under RC, RA, CC, SI, SER), passed as `isocheck explore --timeout` (default 1m at tiny and quick scale, else 10m, the paper's target)")
	exploreBaselineTimeout := fs.Duration("explore-baseline-timeout", 0, "limit of the runs of explore-fig14's baselines: explore-ce* from RA, RC and true, and DFS (default 15s at quick scale, else --explore-timeout)")
	exploreFig15Timeout := fs.Duration("explore-fig15-timeout", 0, "limit of each run of explore-fig15 (default 1m at tiny and quick scale, else 10m)")
	replot := fs.String("replot", "", "draw the plots and summary again from the CSV files of a previous run in DIR, and run nothing")
	var cmp compareFlags
	fs.Func("compare", "another checker to run on each generated history: a shell command, {} the history's path (repeatable)", cmp.compare)
	fs.Func("compare-format", "format of the histories for the --compare commands: text, dbcop, jsonl or edn (default text)", cmp.format)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "isobench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *replot != "" {
		rep, err := harness.Replot(*replot)
		if err != nil {
			fmt.Fprintf(stderr, "isobench: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, rep.Summary)
		fmt.Fprintf(stdout, "wrote %d files to %s\n", len(rep.Files), *replot)
		return 0
	}
	if *full {
		*scale = "full"
	}
	sc, err := harness.ParseScale(*scale)
	if err != nil {
		fmt.Fprintf(stderr, "isobench: --scale: %v\n", err)
		return 2
	}
	repo, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(stderr, "isobench: %v\n", err)
		return 2
	}
	cfg := harness.Config{
		Out:         *out,
		Repo:        repo,
		Binary:      *binary,
		Scale:       sc,
		Reps:        *reps,
		Timeout:     *timeout,
		Corpus:      corpus(*corpusDir, repo, stderr),
		Experiments: strings.Split(*exps, ","),
		Compare:     cmp.comparisons(),
		WorkDir:     *work,
		SQLDB:       sqlDatabase(*sqlDB, *exps, stderr),
		SQLClients:  *sqlClients,
		SQLTimeout:  *sqlTimeout,
		Log:         stderr,

		ExploreTimeout:         *exploreTimeout,
		ExploreBaselineTimeout: *exploreBaselineTimeout,
		ExploreFig15Timeout:    *exploreFig15Timeout,
	}
	start := time.Now()
	rep, err := harness.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "isobench: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, rep.Summary)
	fmt.Fprintf(stdout, "wrote %d files to %s in %s\n", len(rep.Files), *out, time.Since(start).Round(time.Second))
	return 0
}

// sqlDatabase returns the DSN of the SQL experiments' database: the flag,
// else $ISOCHECK_POSTGRES_DSN, else "" (the harness's SQLite file), and
// says which when a SQL experiment runs.
func sqlDatabase(flagValue, experiments string, stderr io.Writer) string {
	if !strings.Contains(experiments, "sql") {
		return flagValue
	}
	switch {
	case flagValue != "":
		fmt.Fprintf(stderr, "isobench: SQL histories recorded on %s (--sql-db)\n", harness.SQLDBKind(flagValue))
		return flagValue
	case os.Getenv("ISOCHECK_POSTGRES_DSN") != "":
		fmt.Fprintln(stderr, "isobench: SQL histories recorded on PostgreSQL ($ISOCHECK_POSTGRES_DSN; --sql-db to choose another database)")
		return os.Getenv("ISOCHECK_POSTGRES_DSN")
	}
	fmt.Fprintln(stderr, "isobench: SQL histories recorded on a fresh SQLite file in the work directory (--sql-db or $ISOCHECK_POSTGRES_DSN for another database)")
	return ""
}

// moduleRoot finds isocheck's module root: the working directory or the
// nearest parent holding its go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/isocheck/isocheck\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run isobench inside the isocheck repository (no go.mod of github.com/isocheck/isocheck above the working directory)")
		}
		dir = parent
	}
}

// corpus returns the corpus directory as internal/corpus finds it for the
// tests ($ISOCHECK_CORPUS, else ../shared/corpus beside the repository),
// or "" when it is missing.
func corpus(flagValue, repo string, stderr io.Writer) string {
	dir := flagValue
	if dir == "" {
		dir = os.Getenv("ISOCHECK_CORPUS")
	}
	if dir == "" {
		dir = filepath.Join(repo, "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintf(stderr, "isobench: no corpus at %s (set --corpus or ISOCHECK_CORPUS): RUBiS, TPC-C and Twitter are skipped\n", dir)
		return ""
	}
	return dir
}
