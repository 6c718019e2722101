package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// The model-checking experiments of Bouajjani, Enea and Román-Calvo,
// "Dynamic Partial Order Reduction for Checking Correctness against
// Transaction Isolation Levels" (PLDI 2023), §7.3: `isocheck explore`
// enumerates the histories of a client program of one of package
// explore/apps's applications under an isolation level, each run in a child
// process, and reports how many histories and end states it found, its time
// and its peak memory.

// ExploreApps are the applications of Figure 14, in the order of
// Bouajjani et al. (PLDI 2023) §7.2 (the names `isocheck explore --app`
// takes).
var ExploreApps = []string{"shopping-cart", "twitter", "courseware", "wikipedia", "tpcc"}

// Fig15Apps are the applications of Figure 15.
var Fig15Apps = []string{"tpcc", "wikipedia"}

// exploreVariant is one configuration of Figure 14.
type exploreVariant struct {
	Name     string // as the paper's plots label it: CC, CC+SI, RA+CC, DFS(CC), ...
	Level    string // --level
	Base     string // --base, or ""
	DFS      bool   // --dfs
	Baseline bool   // limited by the baseline timeout
}

// fig14Variants are Figure 14's configurations: explore-ce under RC, RA
// and CC; explore-ce*(CC, SI) and explore-ce*(CC, SER); the plain-optimal
// explore-ce*(RA, CC), explore-ce*(RC, CC) and explore-ce*(true, CC); and
// the DFS baseline under CC.
var fig14Variants = []exploreVariant{
	{Name: "RC", Level: "rc"},
	{Name: "RA", Level: "ra"},
	{Name: "CC", Level: "cc"},
	{Name: "CC+SI", Level: "si"},
	{Name: "CC+SER", Level: "ser"},
	{Name: "RA+CC", Level: "cc", Base: "ra", Baseline: true},
	{Name: "RC+CC", Level: "cc", Base: "rc", Baseline: true},
	{Name: "true+CC", Level: "cc", Base: "true", Baseline: true},
	{Name: "DFS(CC)", Level: "cc", DFS: true, Baseline: true},
}

// exploresMore maps a plain-optimal variant to the one before it whose
// exploration it contains: explore-ce*(I0, CC) enumerates the histories
// consistent with I0, and every RA-consistent history is RC-consistent.
// Once the smaller one timed out on a program, the larger is skipped.
var exploresMore = map[string]string{"RC+CC": "RA+CC", "true+CC": "RC+CC"}

// ExploreOptions are the flags of one `isocheck explore` run.
type ExploreOptions struct {
	App            string
	Sessions, Txns int
	Seed           int64
	Level          string        // --level
	Base           string        // --base, when not empty
	DFS            bool          // --dfs
	Timeout        time.Duration // --timeout, when positive
}

// Args returns the arguments of isocheck.
func (o ExploreOptions) Args() []string {
	args := []string{"explore", "--json", "--app", o.App,
		"--sessions", strconv.Itoa(o.Sessions), "--txns", strconv.Itoa(o.Txns),
		"--seed", strconv.FormatInt(o.Seed, 10), "--level", o.Level}
	if o.Base != "" {
		args = append(args, "--base", o.Base)
	}
	if o.DFS {
		args = append(args, "--dfs")
	}
	if o.Timeout > 0 {
		args = append(args, "--timeout", o.Timeout.String())
	}
	return args
}

// exploreGrace is how much longer than its own --timeout the harness
// lets `isocheck explore` run before it kills it.
const exploreGrace = 30 * time.Second

// exploreReport is what `isocheck explore --json` prints.
type exploreReport struct {
	Histories int     `json:"histories"`
	EndStates int     `json:"end_states"`
	Blocked   int     `json:"blocked"`
	Failed    int     `json:"failed"`
	Complete  bool    `json:"complete"`
	Millis    float64 `json:"elapsed_ms"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
}

// MeasureExplore runs bin (an isocheck binary) explore with opts and reads
// its report. A complete exploration is satisfied (exit 0) or violated
// (exit 1: some history breaks an assertion of the program, still a
// measurement); one that ran out of time (complete false, or killed
// opts.Timeout + 30 s after it started) is a timeout, with the counts it
// reached.
func MeasureExplore(ctx context.Context, bin string, opts ExploreOptions) (Measurement, error) {
	limit := time.Duration(0)
	if opts.Timeout > 0 {
		limit = opts.Timeout + exploreGrace
	}
	res, err := RunChild(ctx, limit, append([]string{bin}, opts.Args()...))
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{ExitCode: res.ExitCode, Wall: res.Wall, MaxRSS: res.MaxRSS, Load1: res.Load1}
	if res.TimedOut {
		// The exploring worker was killed, never waited for: the peak
		// memory would be the parent's alone.
		m.Status, m.MaxRSS, m.Detail = StatusTimeout, 0, "killed by the harness"
		return m, nil
	}
	if res.ExitCode != 0 && res.ExitCode != 1 && res.ExitCode != 3 {
		m.Status, m.Detail = StatusError, lastLine(res.Stderr)
		return m, nil
	}
	var out exploreReport
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		m.Status = StatusError
		m.Detail = fmt.Sprintf("reading isocheck's JSON: %v", err)
		return m, nil
	}
	m.Stats = Stats{Histories: out.Histories, EndStates: out.EndStates, Blocked: out.Blocked, Failed: out.Failed,
		Elapsed: time.Duration(out.Millis * float64(time.Millisecond))}
	// isocheck explores in a worker process it waits for: both peaks
	// are that of the worker, or the larger is right.
	m.MaxRSS = max(m.MaxRSS, out.PeakRSS)
	switch {
	case !out.Complete:
		// Exit 1 when a history found so far breaks an assertion, else 3.
		m.Status = StatusTimeout
		if opts.Timeout > 0 && m.Stats.Elapsed < opts.Timeout*9/10 {
			// Stopped early for another reason: a memory limit.
			m.Status, m.Detail = StatusNoVerdict, lastLine(res.Stderr)
		}
	case res.ExitCode == 0:
		m.Status = StatusSatisfied
	case res.ExitCode == 1:
		m.Status = StatusViolated
	default:
		m.Status, m.Detail = StatusError, "exit 3 with a complete exploration"
	}
	return m, nil
}

// exploreSizes are the programs of the explore experiments at a scale.
type exploreSizes struct {
	apps           []string // Figure 14's applications
	seeds          []int64  // Figure 14's programs of each
	sessions, txns int      // Figure 14's program size (3 × 3 in the paper)
	fig15Seeds     []int64  // Figure 15's programs of each application
	fig15Sizes     []int    // Figure 15's sessions (3 transactions each) and transactions per session (3 sessions)
	timeout        time.Duration
	baseline       time.Duration // of Figure 14's baselines
	fig15          time.Duration // of Figure 15's runs
}

func exploreScale(s Scale) exploreSizes {
	seeds := []int64{1, 2, 3, 4, 5}
	switch s {
	case Tiny:
		return exploreSizes{apps: []string{"twitter"}, seeds: []int64{1}, sessions: 2, txns: 2,
			fig15Seeds: []int64{1}, fig15Sizes: []int{1, 2}, timeout: time.Minute, baseline: time.Minute, fig15: time.Minute}
	case Quick:
		return exploreSizes{apps: ExploreApps, seeds: seeds, sessions: 3, txns: 3,
			fig15Seeds: seeds, fig15Sizes: []int{1, 2, 3, 4}, timeout: time.Minute, baseline: 15 * time.Second, fig15: time.Minute}
	}
	return exploreSizes{apps: ExploreApps, seeds: seeds, sessions: 3, txns: 3,
		fig15Seeds: seeds, fig15Sizes: []int{1, 2, 3, 4, 5}, timeout: 10 * time.Minute, baseline: 10 * time.Minute, fig15: 10 * time.Minute}
}

// exploreTimeout is the limit of a run of explore-ce in Figure 14:
// Config.ExploreTimeout, else the scale's.
func (e *env) exploreTimeout() time.Duration {
	if e.cfg.ExploreTimeout > 0 {
		return e.cfg.ExploreTimeout
	}
	return exploreScale(e.cfg.Scale).timeout
}

// exploreBaselineTimeout is the limit of a baseline's run in Figure 14:
// Config.ExploreBaselineTimeout, else the scale's (never above
// exploreTimeout).
func (e *env) exploreBaselineTimeout() time.Duration {
	if e.cfg.ExploreBaselineTimeout > 0 {
		return e.cfg.ExploreBaselineTimeout
	}
	return min(exploreScale(e.cfg.Scale).baseline, e.exploreTimeout())
}

// fig15Timeout is the limit of a run in Figure 15:
// Config.ExploreFig15Timeout, else the scale's.
func (e *env) fig15Timeout() time.Duration {
	if e.cfg.ExploreFig15Timeout > 0 {
		return e.cfg.ExploreFig15Timeout
	}
	return exploreScale(e.cfg.Scale).fig15
}

// measureExplore runs one exploration and returns its row, a copy of
// proto with the measurement filled in.
func (e *env) measureExplore(ctx context.Context, proto Row, opts ExploreOptions) (Row, error) {
	m, err := MeasureExplore(ctx, e.bin, opts)
	if err != nil {
		return proto, err
	}
	if ctx.Err() != nil {
		return proto, ctx.Err()
	}
	r := proto
	r.Measurement = m
	e.logExploreRow(r, opts.Timeout)
	return r, nil
}

func (e *env) logExploreRow(r Row, limit time.Duration) {
	what := fmt.Sprintf("%s #%d %s", r.Case, r.Seed, r.X)
	if r.Axis != "" {
		what = fmt.Sprintf("%s #%d %s=%s", r.Case, r.Seed, r.Axis, r.X)
	}
	line := fmt.Sprintf("  %-30s %-8s %-10s %8.2fs %5.0f MiB  %d histories, %d end states", what, r.Variant, r.Status,
		exploreTime(r).Seconds(), float64(r.MaxRSS)/(1<<20), r.Stats.Histories, r.Stats.EndStates)
	if r.Stats.Failed > 0 {
		line += fmt.Sprintf(", %d break an assertion", r.Stats.Failed)
	}
	if r.Status == StatusTimeout {
		line += fmt.Sprintf(" (limit %v)", limit)
	}
	if r.Detail != "" {
		line += "  (" + r.Detail + ")"
	}
	fmt.Fprintln(e.log, line)
}

// runExploreFig14 is Figure 14 of Bouajjani et al. (PLDI 2023): five
// programs (seeds) of each application, each of 3 sessions × 3
// transactions, explored in every configuration of fig14Variants.
func runExploreFig14(ctx context.Context, e *env) ([]Row, error) {
	z := exploreScale(e.cfg.Scale)
	var rows []Row
	for _, app := range z.apps {
		for _, seed := range z.seeds {
			timedOut := make(map[string]bool)
			for _, v := range fig14Variants {
				proto := Row{Experiment: "explore-fig14", Case: app, X: fmt.Sprintf("%dx%d", z.sessions, z.txns),
					Variant: v.Name, Checker: "isocheck", Level: v.Level, Rep: 1, Txns: z.sessions * z.txns, Seed: seed}
				limit := e.exploreTimeout()
				if v.Baseline {
					limit = e.exploreBaselineTimeout()
				}
				if smaller, ok := exploresMore[v.Name]; ok && timedOut[smaller] {
					r := proto
					r.Status, r.Detail = StatusSkipped, smaller+" timed out"
					e.logExploreRow(r, limit)
					rows = append(rows, r)
					timedOut[v.Name] = true
					continue
				}
				r, err := e.measureExplore(ctx, proto, ExploreOptions{App: app, Sessions: z.sessions, Txns: z.txns, Seed: seed,
					Level: v.Level, Base: v.Base, DFS: v.DFS, Timeout: limit})
				if err != nil {
					return rows, err
				}
				rows = append(rows, r)
				timedOut[v.Name] = r.Status == StatusTimeout || r.Status == StatusNoVerdict
			}
		}
	}
	return rows, nil
}

// runExploreFig15 is Figure 15 of Bouajjani et al. (PLDI 2023): explore-ce
// under CC of five programs of TPC-C and of Wikipedia as (a) the sessions
// grow, 3 transactions each, and (b) the transactions per session grow, 3
// sessions. Every program of every size is run (the averages count the
// timeouts, as the paper's).
func runExploreFig15(ctx context.Context, e *env) ([]Row, error) {
	z := exploreScale(e.cfg.Scale)
	apps := Fig15Apps
	if e.cfg.Scale == Tiny {
		apps = []string{"wikipedia"}
	}
	var rows []Row
	for _, app := range apps {
		for _, axis := range []string{"sessions", "txns/session"} {
			for _, n := range z.fig15Sizes {
				sessions, txns := n, 3
				if axis != "sessions" {
					sessions, txns = 3, n
				}
				for _, seed := range z.fig15Seeds {
					proto := Row{Experiment: "explore-fig15", Case: app, Axis: axis, X: strconv.Itoa(n),
						Variant: "CC", Checker: "isocheck", Level: "cc", Rep: 1, Txns: sessions * txns, Seed: seed}
					r, err := e.measureExplore(ctx, proto, ExploreOptions{App: app, Sessions: sessions, Txns: txns, Seed: seed,
						Level: "cc", Timeout: e.fig15Timeout()})
					if err != nil {
						return rows, err
					}
					rows = append(rows, r)
				}
			}
		}
	}
	return rows, nil
}

// exploreTime is the time of an exploration: isocheck's own (the
// exploration alone, start left out), else the run's wall time.
func exploreTime(r Row) time.Duration {
	if r.Stats.Elapsed > 0 {
		return r.Stats.Elapsed
	}
	return r.Wall
}

// solved reports whether the exploration finished.
func solved(r Row) bool { return r.Status == StatusSatisfied || r.Status == StatusViolated }
