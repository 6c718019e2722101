package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Statuses of a measurement besides isocheck's verdicts.
const (
	StatusSatisfied = "satisfied"  // isocheck: exit 0
	StatusViolated  = "violated"   // isocheck: exit 1
	StatusNoVerdict = "no-verdict" // isocheck: exit 3 (its own timeout or memory limit)
	StatusTimeout   = "timeout"    // the harness's timeout killed the run
	StatusError     = "error"      // isocheck: exit 2 or 4, or output that is not its JSON
	StatusSkipped   = "skipped"    // not run: a variant that does more work than one that timed out
)

// StageStat is one stage of a check, as isocheck's --json stats give it:
// its time and the peak memory of the process at its end.
type StageStat struct {
	Stage   string  `json:"stage"`
	MS      float64 `json:"ms"`
	PeakRSS int64   `json:"peak_rss_bytes"`
}

// Stats are the figures of isocheck's --json --stats output the harness
// records (see docs/json.md).
type Stats struct {
	ParseMS               float64 `json:"parse_ms"`
	ConstructMS           float64 `json:"construct_ms"`
	PruneMS               float64 `json:"prune_ms"`
	EncodeMS              float64 `json:"encode_ms"`
	SolveMS               float64 `json:"solve_ms"`
	Transactions          int     `json:"transactions"`
	Constraints           int     `json:"constraints"`
	ConstraintsRemaining  int     `json:"constraints_remaining"`
	UnknownEdges          int     `json:"unknown_edges"`
	UnknownEdgesRemaining int     `json:"unknown_edges_remaining"`

	// The figures of a SQL history's check (its transactions are
	// Transactions): the reads of rows not returned that some version
	// could have matched, the steps of the search, and the time of the
	// check (parse excluded; isocheck prints it as check_ms).
	SQLTxns    int           `json:"-"`
	Conflicts  int           `json:"conflicts"`
	Steps      int           `json:"steps"`
	Elapsed    time.Duration `json:"-"`
	SQLCheckMS float64       `json:"check_ms"`

	// The figures of an exploration (`isocheck explore --json`, whose
	// elapsed_ms is Elapsed): the histories it kept, its end states
	// (before explore-ce*'s filter), its blocked explorations, and the
	// histories that break an assertion of the program.
	Histories int `json:"-"`
	EndStates int `json:"-"`
	Blocked   int `json:"-"`
	Failed    int `json:"-"`
}

// CheckMS is the time of the stages after parsing: construct, prune,
// encode and solve.
func (s Stats) CheckMS() float64 { return s.ConstructMS + s.PruneMS + s.EncodeMS + s.SolveMS }

// Measurement is one run of a checker in a child process.
type Measurement struct {
	// Status is isocheck's verdict (StatusSatisfied, ...), StatusTimeout,
	// or for another checker "exit N".
	Status string
	// ExitCode is the child's exit status; -1 when a signal ended it.
	ExitCode int
	// Wall is the child's elapsed time, process start included.
	Wall time.Duration
	// MaxRSS is the child's peak resident set size in bytes, that of its
	// largest waited-for descendant included (isocheck checks in a worker
	// process it waits for). 0 for an isocheck run that timed out.
	MaxRSS int64
	// Load1 is the machine's load average over the last minute as the
	// child started: above the number of cores, something else competed
	// for them.
	Load1 float64
	// Stats holds isocheck's figures; zero for other checkers.
	Stats Stats
	// Stages are the stages of an isocheck check (written only to the
	// scale experiment's scale-stages.csv).
	Stages []StageStat
	// Detail is the end of the child's standard error when the run
	// failed, for the log.
	Detail string
}

// ChildExit is what a child process did.
type ChildExit struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	TimedOut bool
	Wall     time.Duration
	MaxRSS   int64
	Load1    float64 // load average as it started; 0 when unknown
}

// RunChild runs argv in a new process group and waits for it. When
// timeout is positive and passes, or ctx ends, the whole group is killed
// and TimedOut is set. The error is only for a process that could not be
// started.
func RunChild(ctx context.Context, timeout time.Duration, argv []string) (ChildExit, error) {
	if len(argv) == 0 {
		return ChildExit{}, errors.New("run: no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &tailWriter{max: 4 << 10, buf: &stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	lowerPeak()
	load := load1()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return ChildExit{}, fmt.Errorf("run %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	timedOut := make(chan bool, 1)
	go func() {
		select {
		case <-done:
			timedOut <- false
		case <-timer:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			timedOut <- true
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			timedOut <- true
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	res := ChildExit{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Wall: wall, TimedOut: <-timedOut, Load1: load}
	if res.TimedOut {
		// Children of the child may outlive it; the group dies with it.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("run %s: %w", argv[0], err)
	}
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSS = int64(ru.Maxrss) * 1024 // Linux reports KiB
	}
	return res, nil
}

// lowerPeak brings this process's peak resident set size down to its
// current size, and that as low as it goes. A child starts as a copy of
// its parent (with Go, in the parent's own memory until it executes its
// program), and Linux counts the parent's peak at that moment in the
// child's: without this, a child started after the harness generated a
// large history would report the harness's peak as its own. What is left
// is the harness's current size, a few MiB.
func lowerPeak() {
	debug.FreeOSMemory()
	// "5": reset the peak resident set size (Linux 4.0 and later); an
	// older kernel or another system keeps the peak, which only
	// overstates children's memory.
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// load1 is the first field of /proc/loadavg, or 0.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	l, _ := strconv.ParseFloat(f, 64)
	return l
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	max int
	buf *bytes.Buffer
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if over := w.buf.Len() - w.max; over > 0 {
		w.buf.Next(over)
		rest := append([]byte(nil), w.buf.Bytes()...)
		w.buf.Reset()
		w.buf.Write(rest)
	}
	return len(p), nil
}

// CheckOptions are the flags of one isocheck check run.
type CheckOptions struct {
	Level    string // --level; "si" when empty (but for SQL)
	NoPrune  bool   // --no-prune
	AllPairs bool   // --all-pairs
	Solver   string // --solver, when not empty
	// SQL is for a SQL history (Bouajjani, Enea and Román-Calvo, "On the
	// Complexity of Checking Mixed Isolation Levels for SQL Transactions"
	// (CAV 2025)): --level only when Level is set, else each transaction
	// is checked at the level it recorded; no --stats (the JSON has the
	// stats of a SQL check anyway).
	SQL bool
	// Naive is --naive: the baseline of Bouajjani et al. (CAV 2025),
	// every witness and every commit order (SQL histories).
	Naive bool
}

// Args returns the arguments of isocheck for checking file.
func (o CheckOptions) Args(file string) []string {
	if o.SQL {
		args := []string{"check", "--json"}
		if o.Level != "" {
			args = append(args, "--level", o.Level)
		}
		if o.Naive {
			args = append(args, "--naive")
		}
		return append(args, file)
	}
	level := o.Level
	if level == "" {
		level = "si"
	}
	args := []string{"check", "--json", "--stats", "--level", level}
	if o.NoPrune {
		args = append(args, "--no-prune")
	}
	if o.AllPairs {
		args = append(args, "--all-pairs")
	}
	if o.Solver != "" {
		args = append(args, "--solver", o.Solver)
	}
	return append(args, file)
}

// Variant names the ablation the options select: "default", "no-prune",
// "all-pairs", "no-prune+all-pairs", with "+solver=E" for an engine;
// "naive" for the baseline of Bouajjani et al. (CAV 2025).
func (o CheckOptions) Variant() string {
	var parts []string
	if o.NoPrune {
		parts = append(parts, "no-prune")
	}
	if o.AllPairs {
		parts = append(parts, "all-pairs")
	}
	if o.Solver != "" {
		parts = append(parts, "solver="+o.Solver)
	}
	if o.Naive {
		parts = append(parts, "naive")
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, "+")
}

// MeasureCheck runs bin (an isocheck binary) on file with opts and reads
// its verdict and figures.
func MeasureCheck(ctx context.Context, timeout time.Duration, bin string, opts CheckOptions, file string) (Measurement, error) {
	res, err := RunChild(ctx, timeout, append([]string{bin}, opts.Args(file)...))
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{ExitCode: res.ExitCode, Wall: res.Wall, MaxRSS: res.MaxRSS, Load1: res.Load1}
	switch {
	case res.TimedOut:
		// isocheck's worker, killed with it, was never waited for by
		// its parent: the peak memory would be the parent's alone.
		m.Status, m.MaxRSS = StatusTimeout, 0
		return m, nil
	case res.ExitCode == 0:
		m.Status = StatusSatisfied
	case res.ExitCode == 1:
		m.Status = StatusViolated
	case res.ExitCode == 3:
		m.Status = StatusNoVerdict
	default:
		m.Status = StatusError
		m.Detail = lastLine(res.Stderr)
		return m, nil
	}
	var out struct {
		Stats Stats `json:"stats"`
	}
	var stages struct {
		Stats struct {
			Stages []StageStat `json:"stages"`
		} `json:"stats"`
	}
	json.Unmarshal(res.Stdout, &stages) // read again below, where an error counts
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		m.Status = StatusError
		m.Detail = fmt.Sprintf("reading isocheck's JSON: %v", err)
		return m, nil
	}
	m.Stats, m.Stages = out.Stats, stages.Stats.Stages
	m.Stats.Elapsed = time.Duration(m.Stats.SQLCheckMS * float64(time.Millisecond))
	if m.Stats.Transactions == 0 {
		m.Stats.Transactions = m.Stats.SQLTxns
	}
	if m.Status == StatusNoVerdict {
		m.Detail = lastLine(res.Stderr)
	}
	return m, nil
}

// MeasureCommand runs another checker: argv, with exit status as its
// verdict ("exit N").
func MeasureCommand(ctx context.Context, timeout time.Duration, argv []string) (Measurement, error) {
	res, err := RunChild(ctx, timeout, argv)
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{ExitCode: res.ExitCode, Wall: res.Wall, MaxRSS: res.MaxRSS, Load1: res.Load1}
	if res.TimedOut {
		m.Status = StatusTimeout
		return m, nil
	}
	m.Status = fmt.Sprintf("exit %d", res.ExitCode)
	if res.ExitCode != 0 {
		m.Detail = lastLine(res.Stderr)
	}
	return m, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
