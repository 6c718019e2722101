package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/workload"
)

// planFlags are the flags that describe a workload, shared by plan and run.
type planFlags struct {
	cfg      workload.PlanConfig
	kind     string
	dist     string
	file     string
	longOps  int
	longFrac float64
}

func addPlanFlags(fs *flag.FlagSet, withFile bool) *planFlags {
	p := &planFlags{}
	fs.StringVar(&p.kind, "workload", "general", "workload: general (reads and writes, as PolySI: Huang et al., \"Efficient Black-box Checking of Snapshot Isolation in Databases\", PVLDB 2023), mini (mini-transactions, as MTC: Wei et al., \"Boosting End-to-End Database Isolation Checking via Mini-Transactions\"), lwt (compare-and-set) or append (Elle's list-append)")
	fs.IntVar(&p.cfg.Sessions, "sessions", 20, "client sessions, run concurrently")
	fs.IntVar(&p.cfg.TxnsPerSession, "txns", 100, "transactions per session")
	fs.IntVar(&p.cfg.OpsPerTxn, "ops", 15, "operations per transaction (general and append)")
	fs.IntVar(&p.cfg.Keys, "keys", 10000, "keys")
	fs.Float64Var(&p.cfg.ReadProportion, "reads", -1, "proportion of reads (general, append; default 0.5) or of read-only transactions (mini, lwt; default 0.2), within [0, 1]")
	fs.StringVar(&p.dist, "dist", "zipf", "key distribution: uniform, zipf, or hotspot (80% of operations on 20% of keys)")
	fs.Float64Var(&p.longFrac, "long", 0, "proportion of long transactions (general)")
	fs.IntVar(&p.longOps, "long-ops", 0, "operations of a long transaction (default 10 × --ops)")
	fs.Int64Var(&p.cfg.Values, "values", 0, "values per key (general, mini): writes draw theirs from 1 to N, so that values repeat as counters' and flags' do; 0 makes every written value unique")
	fs.Int64Var(&p.cfg.Seed, "seed", 1, "random seed: the same seed and flags make the same workload")
	if withFile {
		fs.StringVar(&p.file, "workload-file", "", "run the workload written by 'isocheck plan' to FILE instead of generating one (the other workload flags are ignored)")
	}
	return p
}

// plan makes the workload the flags describe, or reads it from the file.
func (p *planFlags) plan() (*workload.Plan, error) {
	if p.file != "" {
		return workload.ReadPlanFile(p.file)
	}
	kind, err := workload.ParseKind(p.kind)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	if p.cfg.Dist, err = workload.ParseDistribution(p.dist); err != nil {
		return nil, fmt.Errorf("--dist: %w", err)
	}
	if p.cfg.Sessions <= 0 || p.cfg.TxnsPerSession <= 0 || p.cfg.OpsPerTxn <= 0 || p.cfg.Keys <= 0 {
		return nil, errors.New("--sessions, --txns, --ops and --keys must be positive")
	}
	if p.cfg.ReadProportion != -1 && !(p.cfg.ReadProportion >= 0 && p.cfg.ReadProportion <= 1) {
		return nil, fmt.Errorf("--reads must be within [0, 1], not %v", p.cfg.ReadProportion)
	}
	p.cfg.Workload, p.cfg.LongProportion, p.cfg.LongOps = kind, p.longFrac, p.longOps
	return workload.NewPlan(p.cfg)
}

// runPlan is `isocheck plan`: write the workload the flags describe
// (what each client session will run) as JSON, for run --workload-file.
func runPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plan", stderr)
	pf := addPlanFlags(fs, false)
	out := fs.String("o", "-", "write the workload to FILE (- is standard output)")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "plan", "unexpected argument %q (the output is -o FILE)", pos[0])
	}
	plan, err := pf.plan()
	if err != nil {
		return usageError(stderr, "plan", "%v", err)
	}
	if err := writeFile(*out, stdout, func(w io.Writer) error { return workload.WritePlan(w, plan) }); err != nil {
		fmt.Fprintf(stderr, "isocheck plan: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}
