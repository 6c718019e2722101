package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/workload"
)

// readOrReport reads the history of a command other than check, reporting
// an error or a stop on stderr; ok is false when the command must exit
// with status.
func readOrReport(in *inputFlags, j *job, path string, stderr io.Writer) (h *history.History, info *format.Info, parseTime time.Duration, status int, ok bool) {
	h, info, parseTime, err := in.read(j, path)
	if err == nil {
		return h, info, parseTime, 0, true
	}
	j.stop()
	if progress.Stopped(err) {
		fmt.Fprintf(stderr, "isocheck: no result: %s\n", j.stopReason(err))
		return nil, nil, 0, exitNoVerdict, false
	}
	fmt.Fprintf(stderr, "isocheck: %v\n", err)
	return nil, nil, 0, exitBadInput, false
}

// writeEscaped writes to w what write prints, with the control characters
// of each line escaped (see textsafe.Lines): for text that a package other
// than interpret formats from the input or from a database's answers.
func writeEscaped(w io.Writer, write func(io.Writer) error) error {
	var b strings.Builder
	err := write(&b)
	if _, werr := io.WriteString(w, textsafe.Lines(b.String())); err == nil {
		err = werr
	}
	return err
}

// registerFlag is a register's value as a flag: an integer, or nil
// (lwt.Nil), which is how the help shows that value.
type registerFlag int64

// newRegisterFlag defines a registerFlag on fs and returns its value.
func newRegisterFlag(fs *flag.FlagSet, name string, value int64, usage string) *int64 {
	p := new(int64)
	*p = value
	fs.Var((*registerFlag)(p), name, usage)
	return p
}

func (r *registerFlag) String() string {
	if r == nil || int64(*r) == lwt.Nil {
		return "nil"
	}
	return strconv.FormatInt(int64(*r), 10)
}

func (r *registerFlag) Set(s string) error {
	if s == "nil" {
		*r = registerFlag(lwt.Nil)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n == lwt.Nil {
		return fmt.Errorf("want an integer above %d, or nil; not %q", int64(lwt.Nil), s)
	}
	*r = registerFlag(n)
	return nil
}

func runStats(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats", stderr)
	in := addInputFlags(fs)
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 1 {
		return usageError(stderr, "stats", "want one PATH, got %d", len(pos))
	}
	in.allowEmpty = true // stats of an empty history are 0s, and say so
	j := in.limits.start(stderr)
	defer j.stop()
	h, info, parseTime, status, ok := readOrReport(in, j, pos[0], stderr)
	if !ok {
		return status
	}
	j.stop()
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
	if h.Lists {
		fmt.Fprintf(stdout, "operations:   %d (reads of lists %d, appends %d)\n", len(h.Ops), reads, writes)
	} else {
		fmt.Fprintf(stdout, "operations:   %d (reads %d, writes %d)\n", len(h.Ops), reads, writes)
	}
	fmt.Fprintf(stdout, "keys:         %d\n", h.NumKeys())
	if len(h.Orders) > 0 {
		fmt.Fprintf(stdout, "stated version orders: %d keys\n", len(h.Orders))
	}
	if info.SkippedOps > 0 {
		fmt.Fprintf(stdout, "skipped:      %d events of processes that are not clients (such as :nemesis)\n", info.SkippedOps)
	}
	if n := len(info.FailedEvents); n > 0 {
		total := 0
		for _, c := range info.FailedEvents {
			total += c
		}
		fmt.Fprintf(stdout, "failed events dropped: %d in %d transactions\n", total, n)
	}
	for _, n := range inputNotes(info, len(h.Txns)) {
		fmt.Fprintf(stdout, "note:         %s\n", textsafe.Escape(n))
	}
	fmt.Fprintf(stdout, "parse time:   %v\n", parseTime.Round(time.Microsecond))
	return exitSatisfied
}

func runConvert(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("convert", stderr)
	in := addInputFlags(fs)
	fs.StringVar(&in.format, "from", "auto", "input format: auto, jsonl, text, dbcop or cobra (same as --format)")
	to := fs.String("to", "", "output format: jsonl, text or dbcop")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 2 || *to == "" {
		return usageError(stderr, "convert", "want --to FORMAT IN OUT")
	}
	outFormat, err := format.ParseFormat(*to)
	if err != nil || outFormat == format.Auto || outFormat == format.Cobra || outFormat == format.SQL {
		return usageError(stderr, "convert", "--to must be jsonl, text or dbcop, not %q", *to)
	}
	j := in.limits.start(stderr)
	defer j.stop()
	h, _, _, status, ok := readOrReport(in, j, pos[0], stderr)
	if !ok {
		return status
	}
	j.stop()
	if err := writeFile(pos[1], stdout, func(w io.Writer) error { return format.Write(w, h, outFormat) }); err != nil {
		fmt.Fprintf(stderr, "isocheck convert: %v\n", err)
		return exitBadInput
	}
	if outFormat == format.Text {
		if n := abortedTxns(h); n > 0 {
			fmt.Fprintf(stderr, "isocheck convert: note: %d aborted transaction(s) written with the transaction id -1, as Plume and AWDIT read them; PolySI's own loader reads non-negative ids only\n", n)
		}
	}
	return exitSatisfied
}

// abortedTxns counts h's aborted transactions.
func abortedTxns(h *history.History) int {
	n := 0
	for i := range h.Txns {
		if h.Txns[i].Status == history.Aborted {
			n++
		}
	}
	return n
}

var storeNames = map[string]histgen.Store{
	"si":        histgen.SnapshotIsolation,
	"ser":       histgen.Serializable,
	"sser":      histgen.StrictSerializable,
	"si-no-fcw": histgen.SnapshotNoFCW,
	"causal":    histgen.Causal,
	"ra":        histgen.ReadAtomic,
	"rc":        histgen.ReadCommitted,
	"random":    histgen.Random,
}

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("generate", stderr)
	store := fs.String("store", "si", "simulated store: si, ser, sser, si-no-fcw, causal, ra, rc or random")
	cfg := histgen.LargeConfig{}
	fs.IntVar(&cfg.Sessions, "sessions", 20, "sessions")
	fs.IntVar(&cfg.TxnsPerSession, "txns", 100, "transactions per session")
	fs.IntVar(&cfg.OpsPerTxn, "ops", 15, "operations per transaction")
	fs.IntVar(&cfg.Keys, "keys", 10000, "keys")
	fs.Float64Var(&cfg.ReadProportion, "reads", 0.5, "proportion of reads, within [0, 1]")
	dist := fs.String("dist", "zipf", "key distribution: uniform, zipf, or hotspot (80% of operations on 20% of keys)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	maxMemory := byteSize(defaultMaxMemory())
	fs.Var(&maxMemory, "max-memory", "refuse sizes that would need more memory than this: a size with its unit, such as 4GiB (default: GOMEMLIMIT if set, else 80% of the machine's memory)")
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	st, ok := storeNames[*store]
	if !ok {
		return usageError(stderr, "generate", "unknown --store %q", *store)
	}
	if len(pos) != 1 {
		return usageError(stderr, "generate", "want one OUT, got %d", len(pos))
	}
	if cfg.Dist, err = workload.ParseDistribution(*dist); err != nil {
		return usageError(stderr, "generate", "--dist: %v", err)
	}
	if cfg.Sessions <= 0 || cfg.TxnsPerSession <= 0 || cfg.OpsPerTxn <= 0 || cfg.Keys <= 0 {
		return usageError(stderr, "generate", "--sessions, --txns, --ops and --keys must be positive")
	}
	if err := cfg.Validate(); err != nil {
		return usageError(stderr, "generate", "%v", err)
	}
	if need := cfg.MemoryEstimate(); maxMemory > 0 && need > int64(maxMemory) {
		return usageError(stderr, "generate", "this history would need about %s of memory, more than --max-memory %s", formatBytes(need), maxMemory.String())
	}
	cfg.Store = st
	h := histgen.Large(cfg)
	if err := writeFile(pos[0], stdout, func(w io.Writer) error { return format.Write(w, h, format.JSONL) }); err != nil {
		fmt.Fprintf(stderr, "isocheck generate: %v\n", err)
		return exitBadInput
	}
	return exitSatisfied
}
