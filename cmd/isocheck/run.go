package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/workload"
)

// Exit statuses.
const (
	exitSatisfied = 0
	exitViolated  = 1
	exitBadInput  = 2
	exitNoVerdict = 3
)

const usage = `usage:
  isocheck check [--level sser|ser|si|pc|cc|ra|rc|all] [--format auto|jsonl|text|dbcop|cobra] [--json]
                 [--timeout 60s] [--stats] [--counterexample FILE] PATH
  isocheck explain [--level ...] [--format ...] [--json] [--timeout 60s] [--color auto|always|never]
                 [--counterexample FILE] [--dot FILE] [--svg FILE] [--png FILE] PATH
  isocheck stats [--format FORMAT] PATH
  isocheck convert [--from FORMAT] --to jsonl|text|dbcop IN OUT
  isocheck generate [--store si|ser|sser|si-no-fcw|causal|ra|rc|random] [--sessions 20] [--txns 100]
                    [--ops 15] [--keys 10000] [--reads 0.5] [--zipf] [--seed 1] OUT.jsonl
  isocheck lwt [--init N] [--timeout 60s] PATH   # linearizability of compare-and-set registers
                                                 # (Jepsen EDN or JSONL events)

Exit status: 0 satisfied, 1 violated, 2 bad input or usage, 3 no verdict.
`

// run is the whole command, with its streams, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadInput
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "check":
		return runCheck(args, stdout, stderr, false)
	case "explain":
		return runCheck(args, stdout, stderr, true)
	case "stats":
		return runStats(args, stdout, stderr)
	case "convert":
		return runConvert(args, stdout, stderr)
	case "generate":
		return runGenerate(args, stdout, stderr)
	case "lwt":
		return runLWT(args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitSatisfied
	}
	fmt.Fprintf(stderr, "isocheck: unknown command %q\n%s", cmd, usage)
	return exitBadInput
}

// parse parses flags that may come before or after the positional
// arguments, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("isocheck "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}

// readHistory reads PATH in the named format, timing it.
func readHistory(path, formatName string) (*history.History, *format.Info, time.Duration, error) {
	f, err := format.ParseFormat(formatName)
	if err != nil {
		return nil, nil, 0, err
	}
	if path == "-" {
		path = "/dev/stdin"
	}
	start := time.Now()
	h, info, err := format.ReadFileInfo(path, f)
	return h, info, time.Since(start), err
}

// runCheck runs check (a summary and the checker's cycle) or, with
// explain, the full report on a minimal counterexample.
func runCheck(args []string, stdout, stderr io.Writer, explain bool) int {
	name := "check"
	if explain {
		name = "explain"
	}
	fs := newFlagSet(name, stderr)
	levelName := fs.String("level", "si", "isolation level: sser, ser, si, pc, cc, ra, rc, or (for check) all")
	formatName := fs.String("format", "auto", "input format: auto, jsonl, text, dbcop or cobra")
	asJSON := fs.Bool("json", false, "print one JSON object")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long (exit 3)")
	stats := fs.Bool("stats", false, "print time per stage and the sizes of the problem")
	cexFile := fs.String("counterexample", "", "write the minimal counterexample to FILE (native JSONL)")
	colorMode := fs.String("color", "auto", "colour the text: auto (when stdout is a terminal), always or never")
	var dotFile, svgFile, pngFile *string
	if explain {
		dotFile = fs.String("dot", "", "write the counterexample as a Graphviz DOT graph to FILE")
		svgFile = fs.String("svg", "", "render the counterexample to an SVG FILE (needs Graphviz's dot)")
		pngFile = fs.String("png", "", "render the counterexample to a PNG FILE (needs Graphviz's dot)")
	}
	pos, err := parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "isocheck %s: want one PATH, got %d\n%s", name, len(pos), usage)
		return exitBadInput
	}
	color, ok := useColor(*colorMode, stdout)
	if !ok {
		fmt.Fprintf(stderr, "isocheck %s: --color must be auto, always or never, not %q\n", name, *colorMode)
		return exitBadInput
	}
	if strings.EqualFold(*levelName, "all") && !explain {
		return runAll(pos[0], *formatName, *timeout, *asJSON, color, stdout, stderr)
	}
	lvl, err := level.Parse(*levelName)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck %s: %v\n", name, err)
		return exitBadInput
	}
	h, info, parseTime, err := readHistory(pos[0], *formatName)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	res, err := check.Check(ctx, h, lvl)
	if err != nil {
		return checkFailed(err, stderr)
	}
	start := time.Now()
	rep := interpret.Explain(res)
	if res.Verdict == check.Violated && (explain || *cexFile != "") {
		min, err := interpret.Minimal(ctx, res)
		if err != nil {
			fmt.Fprintf(stderr, "isocheck: explaining the violation: %v\n", err)
		} else if explain {
			rep = min
		} else {
			rep.Anomaly.Counterexample = min.Anomaly.Counterexample
		}
	}
	explainTime := time.Since(start)
	addFailedEventNotes(rep, res, info)
	status := exitViolated
	switch res.Verdict {
	case check.Satisfied:
		status = exitSatisfied
	case check.NoVerdict:
		status = exitNoVerdict
	}
	if *cexFile != "" && !writeCounterexample(*cexFile, rep, stderr) {
		status = exitBadInput
	}
	if explain && rep.Anomaly != nil {
		if *dotFile != "" {
			if err := writeFile(*dotFile, rep.WriteDOT); err != nil {
				fmt.Fprintf(stderr, "isocheck: %v\n", err)
				status = exitBadInput
			}
		}
		for _, r := range []struct{ file, format string }{{*svgFile, "svg"}, {*pngFile, "png"}} {
			if r.file == "" {
				continue
			}
			if err := rep.Render(r.file, r.format); err != nil {
				fmt.Fprintf(stderr, "isocheck: --%s %s: %v\n", r.format, r.file, err)
				status = exitBadInput
			}
		}
	}
	if *asJSON {
		sm := statsMap(res, parseTime)
		sm["explain_ms"] = float64(explainTime.Microseconds()) / 1000
		out := struct {
			*interpret.Report
			Stats map[string]any `json:"stats"`
		}{rep, sm}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "isocheck: %v\n", err)
			return exitBadInput
		}
	} else {
		if explain {
			rep.WriteExplanation(stdout, color)
		} else {
			rep.WriteTextColor(stdout, color)
		}
		if *stats {
			sm := statsMap(res, parseTime)
			sm["explain_ms"] = float64(explainTime.Microseconds()) / 1000
			writeStats(stdout, sm)
		}
	}
	return status
}

// useColor decides whether to colour text written to w.
func useColor(mode string, w io.Writer) (color, ok bool) {
	switch mode {
	case "always":
		return true, true
	case "never":
		return false, true
	case "auto":
		f, isFile := w.(*os.File)
		if !isFile || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
			return false, true
		}
		st, err := f.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0, true
	}
	return false, false
}

// writeCounterexample writes the report's minimal counterexample in the
// native format; it reports success.
func writeCounterexample(path string, rep *interpret.Report, stderr io.Writer) bool {
	if rep.Anomaly == nil || rep.Anomaly.Counterexample == nil {
		fmt.Fprintf(stderr, "isocheck: --counterexample %s: no violation to write, nothing written\n", path)
		return true
	}
	err := writeFile(path, func(w io.Writer) error { return format.Write(w, rep.Anomaly.Counterexample, format.JSONL) })
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: --counterexample: %v\n", err)
		return false
	}
	return true
}

// writeFile creates path and writes it with write, removing it on error.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}

// addFailedEventNotes says when a transaction of the counterexample had
// failed events that were dropped: in dbcop histories those are the
// likeliest cause of a reported violation (see the corpus README).
func addFailedEventNotes(rep *interpret.Report, res *check.Result, info *format.Info) {
	if info == nil || len(info.FailedEvents) == 0 || rep.Anomaly == nil {
		return
	}
	for _, t := range rep.Anomaly.Txns {
		if n := info.FailedEvents[t.Index]; n > 0 {
			rep.Anomaly.Notes = append(rep.Anomaly.Notes, fmt.Sprintf(
				"transaction %s had %d failed event(s), dropped as dbcop and PolySI do; the database reported them failed inside a committed transaction, the likeliest cause of this violation",
				t.Name, n))
		}
	}
}

func statsMap(res *check.Result, parseTime time.Duration) map[string]any {
	s := res.Stats
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return map[string]any{
		"parse_ms":              ms(parseTime),
		"construct_ms":          ms(s.Construct),
		"prune_ms":              ms(s.Prune),
		"encode_ms":             ms(s.Encode),
		"solve_ms":              ms(s.Solve),
		"transactions":          s.Txns,
		"known_edges":           s.KnownEdges,
		"constraints":           s.Constraints,
		"constraints_pruned":    s.ConstraintsAfter,
		"unknown_edges":         s.UnknownEdges,
		"unknown_edges_pruned":  s.UnknownEdgesAfter,
		"prune_rounds":          s.PruneRounds,
		"solver_rounds":         s.SolverRounds,
		"solver_cycles_blocked": s.SolverClauses,
	}
}

func writeStats(w io.Writer, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "stats:")
	for _, k := range keys {
		fmt.Fprintf(w, "  %-22s %v\n", k, m[k])
	}
}

func runStats(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", stderr)
	formatName := fs.String("format", "auto", "input format")
	pos, err := parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "isocheck stats: want one PATH\n%s", usage)
		return exitBadInput
	}
	h, info, parseTime, err := readHistory(pos[0], *formatName)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	counts := map[history.Status]int{}
	reads, writes := 0, 0
	for i := range h.Txns {
		counts[h.Txns[i].Status]++
	}
	for _, op := range h.Ops {
		if op.Kind == history.Read {
			reads++
		} else {
			writes++
		}
	}
	fmt.Fprintf(stdout, "format:       %s\n", info.Format)
	fmt.Fprintf(stdout, "sessions:     %d\n", len(h.Sessions))
	fmt.Fprintf(stdout, "transactions: %d (committed %d, aborted %d, unknown %d)\n",
		len(h.Txns), counts[history.Committed], counts[history.Aborted], counts[history.Unknown])
	fmt.Fprintf(stdout, "operations:   %d (reads %d, writes %d)\n", len(h.Ops), reads, writes)
	fmt.Fprintf(stdout, "keys:         %d\n", h.NumKeys())
	if n := len(info.FailedEvents); n > 0 {
		total := 0
		for _, c := range info.FailedEvents {
			total += c
		}
		fmt.Fprintf(stdout, "failed events dropped: %d in %d transactions\n", total, n)
	}
	fmt.Fprintf(stdout, "parse time:   %v\n", parseTime.Round(time.Microsecond))
	return exitSatisfied
}

func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", stderr)
	from := fs.String("from", "auto", "input format")
	to := fs.String("to", "", "output format: jsonl, text or dbcop")
	pos, err := parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	if len(pos) != 2 || *to == "" {
		fmt.Fprintf(stderr, "isocheck convert: want --to FORMAT IN OUT\n%s", usage)
		return exitBadInput
	}
	outFormat, err := format.ParseFormat(*to)
	if err != nil || outFormat == format.Auto || outFormat == format.Cobra {
		fmt.Fprintf(stderr, "isocheck convert: --to must be jsonl, text or dbcop, not %q\n", *to)
		return exitBadInput
	}
	h, _, _, err := readHistory(pos[0], *from)
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	out, err := os.Create(pos[1])
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	if err := format.Write(out, h, outFormat); err != nil {
		out.Close()
		os.Remove(pos[1])
		fmt.Fprintf(stderr, "isocheck convert: %s: %v\n", strings.TrimSpace(pos[1]), err)
		return exitBadInput
	}
	if err := out.Close(); err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}

var storeNames = map[string]workload.Store{
	"si":        workload.SnapshotIsolation,
	"ser":       workload.Serializable,
	"sser":      workload.StrictSerializable,
	"si-no-fcw": workload.SnapshotNoFCW,
	"causal":    workload.Causal,
	"ra":        workload.ReadAtomic,
	"rc":        workload.ReadCommitted,
	"random":    workload.Random,
}

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("generate", stderr)
	store := fs.String("store", "si", "simulated store: si, ser, sser, si-no-fcw, causal, ra, rc or random")
	cfg := workload.LargeConfig{}
	fs.IntVar(&cfg.Sessions, "sessions", 20, "sessions")
	fs.IntVar(&cfg.TxnsPerSession, "txns", 100, "transactions per session")
	fs.IntVar(&cfg.OpsPerTxn, "ops", 15, "operations per transaction")
	fs.IntVar(&cfg.Keys, "keys", 10000, "keys")
	fs.Float64Var(&cfg.ReadProportion, "reads", 0.5, "proportion of reads")
	fs.BoolVar(&cfg.Zipf, "zipf", true, "draw keys zipfian (else uniform)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	pos, err := parse(fs, args)
	if err != nil {
		return exitBadInput
	}
	st, ok := storeNames[*store]
	if len(pos) != 1 || !ok {
		fmt.Fprintf(stderr, "isocheck generate: want a known --store and one OUT\n%s", usage)
		return exitBadInput
	}
	if cfg.Sessions <= 0 || cfg.TxnsPerSession <= 0 || cfg.OpsPerTxn <= 0 || cfg.Keys <= 0 || cfg.ReadProportion < 0 || cfg.ReadProportion > 1 {
		fmt.Fprintf(stderr, "isocheck generate: sizes must be positive and --reads within [0,1]\n")
		return exitBadInput
	}
	cfg.Store = st
	h := workload.Large(cfg)
	out, err := os.Create(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	if err := format.Write(out, h, format.JSONL); err != nil {
		out.Close()
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	if err := out.Close(); err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}

// checkFailed reports an error of the checker: bad input (exit 2), or
// anything else, which leaves no verdict (exit 3).
func checkFailed(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "isocheck: %v\n", err)
	var in *polygraph.InputError
	if errors.As(err, &in) {
		return exitBadInput
	}
	return exitNoVerdict
}
