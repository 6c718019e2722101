package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// runExplore is `isocheck explore`: model-check one of the example
// applications (package explore/apps) under an isolation level.
func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explore", stderr)
	var names []string
	for _, a := range apps.All() {
		names = append(names, a.Name)
	}
	app := fs.String("app", "", "the application: "+strings.Join(names, ", "))
	sessions := fs.Int("sessions", 3, "client sessions")
	txns := fs.Int("txns", 3, "transactions per session")
	seed := fs.Int64("seed", 1, "the seed that picks the transactions and their arguments")
	lvl := fs.String("level", "cc", "the level the database keeps: rc, ra, cc, pc, si or ser")
	base := fs.String("base", "", "explore under this weaker level (rc, ra, cc, or true for every history) and keep the histories that satisfy --level (explore-ce* of Bouajjani, Enea and Román-Calvo, \"Dynamic Partial Order Reduction for Checking Correctness against Transaction Isolation Levels\", PLDI 2023); default: --level for rc, ra and cc, cc otherwise")
	dfs := fs.Bool("dfs", false, "enumerate every interleaving instead (the DFS baseline of the same paper, §7: no reduction, histories repeat)")
	all := fs.String("all", "", "write every history found to this directory, one native JSONL file each")
	first := fs.Bool("first", false, "stop at the first history that breaks an assertion")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "explore on this many goroutines (explore-ce only; the results do not depend on it; default: GOMAXPROCS, the CPUs the process may use)")
	asJSON := fs.Bool("json", false, "print the verdict, counts, time and memory as one JSON object (level, satisfied, verdict, reason, anomaly.failures, app, sessions, txns, seed, base, algorithm, histories, end_states, blocked, failed, complete, elapsed_ms, peak_rss_bytes)")
	htmlFile := fs.String("html", "", htmlUsage)
	lim := addLimitFlags(fs)
	pos, help, err := parse(fs, args)
	if err != nil {
		return parseStatus(help)
	}
	if len(pos) != 0 {
		return usageError(stderr, "explore", "unexpected argument %q", pos[0])
	}
	a, ok := apps.Lookup(*app)
	if !ok {
		return usageError(stderr, "explore", "--app must be one of %s (got %q)", strings.Join(names, ", "), *app)
	}
	if *sessions < 1 || *txns < 1 {
		return usageError(stderr, "explore", "--sessions and --txns must be at least 1")
	}
	cfg := explore.Options{StopAtFailure: *first, Workers: *workers}
	if cfg.Level, err = level.Parse(*lvl); err != nil {
		return usageError(stderr, "explore", "--level: %v", err)
	}
	switch *base {
	case "":
	case "true":
		cfg.Base = explore.AnyHistory
	default:
		if cfg.Base, err = level.Parse(*base); err != nil {
			return usageError(stderr, "explore", "--base: %v", err)
		}
	}
	if *dfs {
		cfg.Algorithm = explore.DFS
	}
	p := a.Program(*sessions, *txns, *seed)
	if n := p.NumTxns(); n > 63 {
		return usageError(stderr, "explore", "%d sessions × %d transactions is %d transactions; explore handles at most 63", *sessions, *txns, n)
	}
	if *all != "" {
		if err := os.MkdirAll(*all, 0o755); err != nil {
			fmt.Fprintf(stderr, "isocheck explore: %v\n", err)
			return exitBadInput
		}
	}
	j := lim.start(stderr)
	defer j.stop()
	written := 0
	if *all != "" {
		cfg.OnHistory = func(h *explore.History) error {
			written++
			name := fmt.Sprintf("h%06d.jsonl", written)
			if h.Failed() {
				name = fmt.Sprintf("h%06d-broken.jsonl", written)
			}
			return writeHistory(filepath.Join(*all, name), h)
		}
	}
	res, err := explore.Explore(j.ctx, p, cfg)
	j.stop()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck explore: %v\n", err)
		return exitBadInput
	}
	stopped := ""
	if !res.Complete {
		stopped = stopCause(j, *first)
	}
	var how *cameAbout
	if res.First != nil {
		how = howItCameAbout(context.Background(), res.First, res.Level)
	}
	if *htmlFile != "" {
		writePage(*htmlFile, stdout, explorePage(commandLine("explore", args), newExploreReport(a.Name, *sessions, *txns, *seed, res), res, how, stopped), stderr)
	}
	if *asJSON {
		rep := newExploreReport(a.Name, *sessions, *txns, *seed, res)
		rep.Stopped = stopped
		return encodeJSON(stdout, stderr, exploreStatus(res), rep)
	}
	fmt.Fprintf(stdout, "%s: %d sessions × %d transactions (seed %d), %v", a.Name, *sessions, *txns, *seed, res.Level)
	if res.Base != res.Level {
		fmt.Fprintf(stdout, " explored under %s", baseName(res.Base))
	}
	fmt.Fprintf(stdout, ", %v\n", res.Algorithm)
	fmt.Fprintf(stdout, "histories: %d", res.Histories)
	if res.EndStates != res.Histories {
		fmt.Fprintf(stdout, " of %d end states", res.EndStates)
	}
	if res.Blocked > 0 {
		fmt.Fprintf(stdout, ", %d blocked explorations", res.Blocked)
	}
	fmt.Fprintf(stdout, "\ntime: %v, peak memory %s\n", res.Elapsed.Round(1e6), formatBytes(peakResidentMemory()))
	if *all != "" {
		fmt.Fprintf(stdout, "wrote %d histories to %s\n", written, *all)
	}
	if !res.Complete {
		// The counts above are of the part explored: say so before
		// anything reads them as the program's.
		fmt.Fprintf(stdout, "incomplete: %s: %s histories explored so far; not every history was explored\n", stopped, count(int64(res.Histories)))
		if h := j.hint(nil); h != "" {
			fmt.Fprintf(stdout, "  %s\n", h)
		}
	}
	if res.First != nil {
		if res.Complete {
			fmt.Fprintf(stdout, "\n%d histories break an assertion. The first:\n", res.Failed)
		} else {
			fmt.Fprintf(stdout, "\n%d of the histories explored break an assertion. The first:\n", res.Failed)
		}
		if err := res.First.WriteBroken(stdout); err != nil {
			fmt.Fprintf(stderr, "isocheck explore: %v\n", err)
		}
		fmt.Fprintln(stdout)
		how.writeText(stdout)
		return exitViolated
	}
	if !res.Complete {
		fmt.Fprintf(stdout, "no verdict: no history explored breaks an assertion, but not every history was explored\n")
		return exitNoVerdict
	}
	fmt.Fprintf(stdout, "every history keeps the assertions\n")
	return exitSatisfied
}

// exploreStatus is the exit status of an exploration: 1 when a history
// breaks an assertion, 3 when it stopped early without one, 0 otherwise.
func exploreStatus(res *explore.Result) int {
	switch {
	case res.First != nil:
		return exitViolated
	case !res.Complete:
		return exitNoVerdict
	}
	return exitSatisfied
}

// stopCause says why an exploration stopped before it was complete: the
// job's timeout or memory limit, or --first.
func stopCause(j *job, first bool) string {
	cause := j.cause(nil)
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Sprintf("stopped by --timeout after %v", time.Duration(j.limits.timeout))
	case errors.Is(cause, progress.ErrResourceLimit):
		return fmt.Sprintf("stopped by --max-memory (%v)", cause)
	case cause != nil:
		return fmt.Sprintf("stopped (%v)", cause)
	case first:
		return "stopped at the first history that breaks an assertion (--first)"
	}
	return "stopped early"
}

// exploreReport is what `explore --json` prints: the head every
// vertical's report has (the level explored; satisfied: every history
// keeps the program's assertions; the evidence of the first history that
// does not), then the counts.
type exploreReport struct {
	verdict.Report[brokenAssertions]
	App       string  `json:"app"`
	Sessions  int     `json:"sessions"`
	Txns      int     `json:"txns"`
	Seed      int64   `json:"seed"`
	Base      string  `json:"base"`
	Algorithm string  `json:"algorithm"`
	Histories int     `json:"histories"`
	EndStates int     `json:"end_states"`
	Blocked   int     `json:"blocked"`
	Failed    int     `json:"failed"`
	Complete  bool    `json:"complete"`
	Stopped   string  `json:"stopped,omitempty"` // why it is not complete
	Millis    float64 `json:"elapsed_ms"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
}

// brokenAssertions is the evidence of an exploration's violation: the
// assertions the first history that breaks them broke, in words.
type brokenAssertions struct {
	Failures []string `json:"failures"`
}

func newExploreReport(app string, sessions, txns int, seed int64, res *explore.Result) exploreReport {
	r := exploreReport{
		Report: verdict.NewReport[brokenAssertions](res.Level.String(), res.Outcome),
		App:    app, Sessions: sessions, Txns: txns, Seed: seed,
		Base: baseName(res.Base), Algorithm: res.Algorithm.String(),
		Histories: res.Histories, EndStates: res.EndStates, Blocked: res.Blocked, Failed: res.Failed,
		Complete: res.Complete, Millis: ms(res.Elapsed), PeakRSS: peakResidentMemory(),
	}
	if res.First != nil {
		r.Anomaly = &brokenAssertions{Failures: res.First.Failures()}
	}
	return r
}

func baseName(l level.Level) string {
	if l == explore.AnyHistory {
		return "true"
	}
	return l.String()
}

// cameAbout is how a history that breaks an assertion came about: the
// level explored allows it, and Forbids, the weakest stronger level that
// does not, breaks it as Report explains; Report is nil when every level
// up to SER allows the history.
type cameAbout struct {
	Explored, Forbids level.Level
	Report            *interpret.Report
}

// howItCameAbout checks h, a history explored at the level explored, at
// each stronger level in turn, and explains the first that it breaks.
func howItCameAbout(ctx context.Context, h *explore.History, explored level.Level) *cameAbout {
	kv := h.KV()
	for _, l := range []level.Level{level.RA, level.CC, level.PC, level.SI, level.SER} {
		if !stronger(l, explored) {
			continue
		}
		res, err := check.Check(ctx, kv, l)
		if err != nil || res.Verdict != verdict.Violated {
			continue
		}
		// Every weaker level was checked above and is kept, the one
		// explored included: the anomaly is named by l's rule.
		res.WeakerChecked = true
		rep, err := interpret.Minimal(ctx, res)
		if err != nil {
			rep = interpret.Explain(res)
		}
		return &cameAbout{Explored: explored, Forbids: l, Report: rep}
	}
	return &cameAbout{Explored: explored}
}

// intro is the sentence that introduces the explanation.
func (c *cameAbout) intro() string {
	if c.Report == nil {
		return "Every level up to SER allows this history: the program breaks its assertion even when its transactions run one at a time."
	}
	return fmt.Sprintf("How it came about: the database kept %v, which allows this history; %v would not", c.Explored, c.Forbids)
}

// writeText writes the explanation as the text report ends with it.
func (c *cameAbout) writeText(w io.Writer) {
	if c.Report == nil {
		fmt.Fprintln(w, c.intro())
		return
	}
	fmt.Fprintf(w, "%s:\n", c.intro())
	c.Report.WriteText(w)
}

// stronger reports whether level a is stronger than b.
func stronger(a, b level.Level) bool {
	rank := map[level.Level]int{level.RC: 0, level.RA: 1, level.CC: 2, level.PC: 3, level.SI: 4, level.SER: 5}
	return rank[a] > rank[b]
}

func writeHistory(path string, h *explore.History) error {
	return writeFile(path, nil, func(w io.Writer) error { return format.Write(w, h.KV(), format.JSONL) })
}
