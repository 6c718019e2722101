package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
)

// onlineStream is one stream of the online experiment: a level and the
// simulated store whose output is checked at it: a generated history, or
// with fences the history `isocheck run --fences` records of a simulated
// database (dsn).
type onlineStream struct {
	level string
	store histgen.Store
	dsn   string
}

// fencesEvery is the fenced streams' --fences: every 1,000 transactions
// of each session, as run --check does, or 100 in tiny streams.
func fencesEvery(s Scale) int {
	if s == Tiny {
		return 100
	}
	return 1000
}

var onlineStreams = []onlineStream{
	{level: "SER", store: histgen.Serializable}, {level: "SI", store: histgen.SnapshotIsolation},
	{level: "CC", store: histgen.Causal}, {level: "RC", store: histgen.ReadCommitted},
	{level: "SER", dsn: "sim://ser"}, {level: "SI", dsn: "sim://si"}, {level: "CC", dsn: "sim://si"},
}

// name is the stream's name in the rows: its level, and the fences.
func (s onlineStream) name() string {
	if s.dsn != "" {
		return s.level + " fenced"
	}
	return s.level
}

// onlineSize is the stream's length in transactions and the rate it is
// written at, in transactions a second.
func onlineSize(s Scale) (txns, rate int) {
	switch s {
	case Tiny:
		return 10_000, 20_000
	case Quick:
		return 500_000, 50_000
	default:
		return 3_000_000, 50_000
	}
}

// onlineSample is how often the experiment samples the checker's memory.
const onlineSample = 250 * time.Millisecond

// runOnline writes a simulated store's history to `isocheck check
// --follow --level L -` at a steady rate, as a test that records its
// history would, and samples the memory of the checker's processes and
// how much of the stream it has been given. A row per sample (Axis
// "seconds": X the time, Txns the transactions written, MaxRSS the
// checker's resident memory then), and a row at the end (X "end": the
// verdict, the whole time, the peak memory; check_ms is the time its
// windows took, steps how many there were).
func runOnline(ctx context.Context, e *env) ([]Row, error) {
	n, rate := onlineSize(e.cfg.Scale)
	var rows []Row
	for _, s := range onlineStreams {
		var path string
		var err error
		if s.dsn != "" {
			path, err = e.fencedHistory(ctx, s.dsn, n)
		} else {
			cfg := histgen.LargeConfig{Sessions: 20, TxnsPerSession: n / 20, OpsPerTxn: 8, Keys: n, ReadProportion: 0.5, Seed: 1, Store: s.store}
			g := large(cfg)
			path, err = e.historyFile(g, format.JSONL)
			defer e.forget(g)
		}
		if err != nil {
			return rows, err
		}
		total, write, err := fileLines(path)
		if err != nil {
			return rows, err
		}
		got, err := e.follow(ctx, s.level, total, write, rate, s.dsn != "")
		for i := range got {
			got[i].Experiment, got[i].Case, got[i].Level, got[i].Checker, got[i].Rep = "online", s.name(), s.name(), "isocheck", 1
		}
		rows = append(rows, got...)
		if err != nil {
			return rows, err
		}
	}
	// A longer stream, generated as it is written, with fences.
	dur := sustainedFor(e.cfg.Scale)
	g := newFencedSerial(20, 100_000, fencesEvery(e.cfg.Scale))
	got, err := e.follow(ctx, "SER", int(dur.Seconds())*rate, g.write, rate, true)
	for i := range got {
		got[i].Experiment, got[i].Case, got[i].Level, got[i].Checker, got[i].Rep = "online", sustainedName, sustainedName, "isocheck", 1
	}
	return append(rows, got...), err
}

// fencedHistory returns the path of the history of n transactions, in
// 20 sessions, that `isocheck run --fences` records of the simulated
// database dsn, recording it the first time.
func (e *env) fencedHistory(ctx context.Context, dsn string, n int) (string, error) {
	every := fencesEvery(e.cfg.Scale)
	id := fmt.Sprintf("run %s %d fences %d", dsn, n, every)
	if p, ok := e.files[id]; ok {
		return p, nil
	}
	p := filepath.Join(e.work, safeName(strings.NewReplacer(":", "_", "?", "_").Replace(id))+".jsonl")
	cmd := exec.CommandContext(ctx, e.bin, "run", "--db", dsn, "--workload", "general", "--sessions", "20",
		"--txns", strconv.Itoa(n/20), "--ops", "8", "--keys", strconv.Itoa(n), "--dist", "uniform",
		"--fences", strconv.Itoa(every), "--force", "-o", p)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("online: %s: %w\n%s", strings.Join(cmd.Args, " "), err, lastLine(out))
	}
	e.files[id] = p
	return p, nil
}

// fileLines returns the lines of the history at path, as follow writes
// them.
func fileLines(path string) (total int, write func(w *bufio.Writer, from, to int), err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return len(lines), func(w *bufio.Writer, from, to int) {
		for _, l := range lines[from:to] {
			w.Write(l)
		}
	}, nil
}

// follow writes total lines, those write writes from one line to the
// next, to a child `isocheck check --follow` at rate a second, and samples
// it. plain asks for the verdict alone (no --json, no --stats): the
// verdict of a history with fences is then the pieces' between them, and
// the check of the whole is left out.
func (e *env) follow(ctx context.Context, level string, total int, write func(w *bufio.Writer, from, to int), rate int, plain bool) ([]Row, error) {
	args := []string{"check", "--follow", "--json", "--stats", "--level", level, "-"}
	if plain {
		args = []string{"check", "--follow", "--level", level, "-"}
	}
	cmd := exec.Command(e.bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &tailWriter{max: 4 << 10, buf: new(bytes.Buffer)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	lowerPeak()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	pgid := cmd.Process.Pid
	deadline := time.AfterFunc(e.cfg.Timeout+time.Duration(total/rate)*time.Second, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	defer deadline.Stop()

	var rows []Row
	written := 0
	sample := func() {
		t := time.Since(start)
		rows = append(rows, Row{Axis: "seconds", X: strconv.FormatFloat(t.Seconds(), 'f', 2, 64), Txns: written,
			Measurement: Measurement{Status: "sample", Wall: t, MaxRSS: groupRSS(pgid)}})
	}
	// The stream: a batch every 20 ms, as many lines as the rate gives.
	tick := time.NewTicker(20 * time.Millisecond)
	next := start.Add(onlineSample)
	w := bufio.NewWriterSize(in, 1<<20)
	for written < total && ctx.Err() == nil {
		<-tick.C
		due := min(total, int(time.Since(start).Seconds()*float64(rate)))
		write(w, written, due)
		written = due
		if err := w.Flush(); err != nil {
			break // the child is gone: its exit says why
		}
		if time.Now().After(next) {
			sample()
			next = next.Add(onlineSample)
		}
	}
	tick.Stop()
	sample() // the end of the stream
	in.Close()
	// The check of the whole, after the end of the stream.
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	for done := false; !done; {
		select {
		case werr = <-waited:
			done = true
		case <-time.After(onlineSample):
			sample()
		}
	}
	end := Row{X: "end", Txns: written, Measurement: Measurement{Wall: time.Since(start), ExitCode: cmd.ProcessState.ExitCode()}}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		end.MaxRSS = int64(ru.Maxrss) * 1024
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return rows, werr
	}
	var out struct {
		Stats struct {
			Stats
			Follow struct {
				Windows  int     `json:"windows"`
				WindowMS float64 `json:"window_ms"`
			} `json:"follow"`
		} `json:"stats"`
	}
	switch end.ExitCode {
	case 0:
		end.Status = StatusSatisfied
	case 1:
		end.Status = StatusViolated
	default:
		end.Status, end.Detail = StatusError, lastLine(cmd.Stderr.(*tailWriter).buf.Bytes())
	}
	if plain {
		// The stream's line on stderr says how many pieces decided it.
		m := regexp.MustCompile(`decided in (\d+) pieces`).FindSubmatch(cmd.Stderr.(*tailWriter).buf.Bytes())
		if m != nil {
			end.Stats.Steps, _ = strconv.Atoi(string(m[1]))
		} else if end.Status != StatusError {
			end.Status, end.Detail = StatusError, "the pieces between fences did not decide: "+lastLine(cmd.Stderr.(*tailWriter).buf.Bytes())
		}
	} else if err := json.Unmarshal(stdout.Bytes(), &out); err == nil {
		end.Stats = out.Stats.Stats
		end.Stats.Steps = out.Stats.Follow.Windows
		end.Stats.Elapsed = time.Duration(out.Stats.Follow.WindowMS * float64(time.Millisecond))
	} else if end.Status != StatusError {
		end.Status, end.Detail = StatusError, fmt.Sprintf("reading isocheck's JSON: %v", err)
	}
	return append(rows, end), nil
}

// groupRSS is the resident memory of the processes of group pgid (isocheck
// and the worker it checks in), in bytes.
func groupRSS(pgid int) int64 {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var total int64
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}

// plotOnline draws the checker's memory and the transactions written
// against the stream's time, a line per level.
func plotOnline(rows []Row, m Machine, dir string) ([]string, error) {
	var series []string
	mem := make(map[string]plotter.XYs)
	written := make(map[string]plotter.XYs)
	for _, r := range rows {
		if r.Axis != "seconds" {
			continue
		}
		if !slices.Contains(series, r.Level) {
			series = append(series, r.Level)
		}
		x, _ := strconv.ParseFloat(r.X, 64)
		mem[r.Level] = append(mem[r.Level], plotter.XY{X: x, Y: float64(r.MaxRSS) / (1 << 20)})
		written[r.Level] = append(written[r.Level], plotter.XY{X: x, Y: float64(r.Txns)})
	}
	var files []string
	for _, v := range []struct {
		name, title, label string
		pts                map[string]plotter.XYs
	}{
		{"online-memory", "check --follow: the checker's memory over the stream (the check of the whole at its end)", "resident memory (MiB)", mem},
		{"online-stream", "check --follow: transactions written to the checker", "transactions", written},
	} {
		p := newPlot(v.title, m)
		p.X.Label.Text = "seconds"
		p.Y.Label.Text = v.label
		// Linear axes: a flat line is flat memory, a straight one a
		// steady stream.
		if err := addSeries(p, series, v.pts); err != nil {
			return files, fmt.Errorf("plot online: %w", err)
		}
		p.Legend.Left, p.Legend.Top = true, true
		fs, err := save(p, dir, v.name, 6*vg.Inch)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// onlineSummary writes the online experiment's table: per level, the
// stream, how many transactions a second its windows could have kept up
// with, the checker's memory during the stream (its last second's most)
// and at the end, with the check of the whole.
func onlineSummary(b *strings.Builder, rows []Row) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### Checking while the history is written (`check --follow`)\n\n")
	b.WriteString("A simulated store's history written to `isocheck check --follow --level L -` at a steady rate. Windows' capacity: the transactions of the stream over the time its windows' checks took. Memory during the stream: the checker's resident memory in the last second of the stream; at the end: its peak, the check of the whole input included. Cobra's artifact checks about 2,000 transactions a second online (Tan, Zhao, Mu and Walfish, \"Cobra: Making Transactional Key-Value Stores Verifiably Serializable\", OSDI 2020).\n\n")
	b.WriteString("The fenced streams are what `isocheck run --fences` records of a simulated database (20 sessions, a fence every 1,000 transactions of each; 100 in tiny streams), checked a piece between two fences at a time: their verdict is the pieces', nothing is checked whole, and the column of windows counts the pieces.\n\n")
	b.WriteString("| stream | transactions | rate written | windows | windows' capacity | memory during the stream | peak memory | total time | verdict |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		if r.X != "end" {
			continue
		}
		// The stream ended at the first sample of all of it.
		var streamEnd time.Duration
		var during int64
		for _, s := range rows {
			if s.Level == r.Level && s.Axis == "seconds" && s.Txns == r.Txns && (streamEnd == 0 || s.Wall < streamEnd) {
				streamEnd = s.Wall
			}
		}
		for _, s := range rows {
			if s.Level == r.Level && s.Axis == "seconds" && s.Wall <= streamEnd && s.Wall > streamEnd-time.Second {
				during = max(during, s.MaxRSS)
			}
		}
		capacity := "-"
		if d := r.Stats.Elapsed; d > 0 {
			capacity = fmt.Sprintf("%.0f/s", float64(r.Txns)/d.Seconds())
		}
		rate := "-"
		if streamEnd > 0 {
			rate = fmt.Sprintf("%.0f/s", float64(r.Txns)/streamEnd.Seconds())
		}
		fmt.Fprintf(b, "| %s | %d | %s | %d | %s | %s | %s | %s | %s |\n", r.Level, r.Txns, rate, r.Stats.Steps, capacity, mib(during), mib(r.MaxRSS), seconds(r.Wall), r.Status)
	}
	for _, r := range rows {
		if r.X != "end" || r.Level != sustainedName {
			continue
		}
		// Flat memory: its range from the first tenth of the stream on.
		var streamEnd time.Duration
		for _, s := range rows {
			if s.Level == r.Level && s.Axis == "seconds" && s.Txns == r.Txns && (streamEnd == 0 || s.Wall < streamEnd) {
				streamEnd = s.Wall
			}
		}
		var lo, hi, first int64
		for _, s := range rows {
			if s.Level != r.Level || s.Axis != "seconds" || s.Wall > streamEnd {
				continue
			}
			if s.Wall < streamEnd/10 {
				first = max(first, s.MaxRSS)
				continue
			}
			if lo == 0 || s.MaxRSS < lo {
				lo = s.MaxRSS
			}
			hi = max(hi, s.MaxRSS)
		}
		fmt.Fprintf(b, "\nThe sustained stream is generated as it is written (a serializable store, 20 sessions, 100,000 keys, fences as above) for %s: the checker's memory was %s to %s from the first tenth of the stream to its end (%s at most before).\n", seconds(streamEnd), mib(lo), mib(hi), mib(first))
	}
}
