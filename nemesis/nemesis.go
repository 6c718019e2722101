// Package nemesis injects faults into a cluster the project started
// itself while a run drives it: on a schedule it pauses (SIGSTOP) or kills
// (SIGKILL) one node at a time and heals it again, so that the
// transactions caught in a fault end unknown or aborted, never lost.
//
// A cluster is named by its script (scripts/etcd.sh, scripts/galera.sh, or
// any script with the same two subcommands):
//
//	SCRIPT pids [DIR]            prints a line per node: its index from 0
//	                             and its server's pid, or - if it is down
//	SCRIPT restart-node I [DIR]  starts the killed node I again and waits
//	                             until it has rejoined the cluster
//
// Only one node is faulty at a time, so a cluster of three keeps its
// majority, and Run heals the node it faulted before it returns, even when
// its context ends in the middle of a fault: it never leaves a node paused
// or down.
package nemesis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Kinds of fault.
const (
	// Pause stops a node's server with SIGSTOP and resumes it with
	// SIGCONT: its connections stay open but nothing answers.
	Pause = "pause"
	// Kill kills a node's server with SIGKILL and restarts it with
	// `SCRIPT restart-node I`: its connections drop.
	Kill = "kill"
)

// Actions of events.
const (
	ActionPause   = "pause"
	ActionResume  = "resume"
	ActionKill    = "kill"
	ActionRestart = "restart"
)

// Defaults of Config.
const (
	DefaultInterval = 5 * time.Second
	DefaultDuration = 2 * time.Second
)

// healTimeout bounds the healing of a fault: a restart-node (which may
// wait for a full state transfer) or a resume.
const healTimeout = 5 * time.Minute

// exitTimeout bounds the wait for a killed server to exit.
const exitTimeout = 10 * time.Second

// Config says which cluster to fault, how and how often.
type Config struct {
	// Kind is the kind of fault: Pause or Kill.
	Kind string
	// Script is the path of the script that started the cluster
	// (scripts/etcd.sh, scripts/galera.sh, or any script with the
	// subcommands pids and restart-node I).
	Script string
	// Dir is the script's DIR argument; empty means the script's default.
	Dir string
	// Interval is the quiet time before each fault: from the start of
	// Run, then from the end of the previous fault's healing [5s].
	Interval time.Duration
	// Duration is how long a node stays paused or down before it is
	// resumed or restarted [2s].
	Duration time.Duration
	// Seed chooses the node each fault hits.
	Seed int64
	// Log, if not nil, receives a line per event (Event.String).
	Log io.Writer
}

// Event is a fault or its healing.
type Event struct {
	// At is the time since Run started.
	At time.Duration
	// Node is the node's index, from 0.
	Node int
	// Action is ActionPause, ActionResume, ActionKill or ActionRestart.
	Action string
	// Err is why the action failed, nil if it succeeded.
	Err error
}

// String returns the event as a line of the log without its newline, as
// in "12.004s node 1 kill".
func (e Event) String() string {
	s := fmt.Sprintf("%.3fs node %d %s", e.At.Seconds(), e.Node, e.Action)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Parse returns the kind of fault a flag names: "pause" or "kill" (in any
// case, spaces around ignored), or "" for "" and "none" (no faults).
func Parse(spec string) (kind string, err error) {
	switch s := strings.ToLower(strings.TrimSpace(spec)); s {
	case "", "none":
		return "", nil
	case Pause, Kill:
		return s, nil
	}
	return "", fmt.Errorf("nemesis: unknown kind %q (want %s or %s)", spec, Pause, Kill)
}

// withDefaults returns c with its zero durations set to their defaults.
func (c Config) withDefaults() Config {
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	return c
}

// Validate reports whether Run would accept c: a known kind, an
// executable script and positive durations (zero ones defaulted). It does
// not run the script.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch c.Kind {
	case Pause, Kill:
	case "":
		return fmt.Errorf("nemesis: no kind of fault (want %s or %s)", Pause, Kill)
	default:
		return fmt.Errorf("nemesis: unknown kind %q (want %s or %s)", c.Kind, Pause, Kill)
	}
	if c.Script == "" {
		return errors.New("nemesis: no cluster script (such as scripts/etcd.sh)")
	}
	fi, err := os.Stat(c.Script)
	switch {
	case err != nil:
		return fmt.Errorf("nemesis: cluster script: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("nemesis: cluster script %s is not a file", c.Script)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("nemesis: cluster script %s is not executable", c.Script)
	}
	if c.Interval <= 0 {
		return fmt.Errorf("nemesis: interval %v is not positive", c.Interval)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("nemesis: duration %v is not positive", c.Duration)
	}
	return nil
}

// Run faults the cluster until ctx is done and returns the events, in
// order: each fault is followed by its healing. It returns a nil error
// when ctx ends, and stops at the first action that fails, with the
// script's stderr in the error. Before it returns it heals the node it
// faulted last, with a context of its own, whether ctx is done or not.
//
// Run refuses to fault a cluster with a node down that it did not kill:
// faulting a second node could cost a cluster of three its majority.
func Run(ctx context.Context, cfg Config) ([]Event, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &nemesis{
		cfg:   cfg,
		start: time.Now(),
		rng:   rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6e656d65736973)),
	}
	// A cluster that is down or partly down is refused at once rather
	// than at the first fault.
	if _, err := n.pids(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	timer := time.NewTimer(cfg.Interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return n.events, nil
		case <-timer.C:
		}
		pids, err := n.pids(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return n.events, nil
			}
			return n.events, err
		}
		node := n.rng.IntN(len(pids))
		if faulted, err := n.fault(node, pids[node]); err != nil {
			if faulted {
				err = errors.Join(err, n.heal(node, pids[node]))
			}
			return n.events, err
		}
		timer.Reset(cfg.Duration)
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		if err := n.heal(node, pids[node]); err != nil {
			return n.events, err
		}
		if ctx.Err() != nil {
			return n.events, nil
		}
		timer.Reset(cfg.Interval)
	}
}

type nemesis struct {
	cfg    Config
	start  time.Time
	rng    *rand.Rand
	events []Event
}

// record appends an event, logs it and returns its error.
func (n *nemesis) record(node int, action string, err error) error {
	e := Event{At: time.Since(n.start), Node: node, Action: action, Err: err}
	n.events = append(n.events, e)
	if n.cfg.Log != nil {
		fmt.Fprintf(n.cfg.Log, "nemesis: %s\n", e)
	}
	return err
}

// fault pauses or kills node's server. It reports whether the node may
// be faulted (and needs healing) when it fails.
func (n *nemesis) fault(node, pid int) (faulted bool, err error) {
	if n.cfg.Kind == Pause {
		err := signal(pid, sigStop)
		if err != nil {
			err = fmt.Errorf("nemesis: pausing node %d (pid %d): %w", node, pid, err)
		}
		return false, n.record(node, ActionPause, err)
	}
	if err := signal(pid, sigKill); err != nil {
		err = fmt.Errorf("nemesis: killing node %d (pid %d): %w", node, pid, err)
		return false, n.record(node, ActionKill, err)
	}
	// restart-node refuses a node whose server still runs.
	if err := awaitExit(pid, exitTimeout); err != nil {
		err = fmt.Errorf("nemesis: killing node %d (pid %d): %w", node, pid, err)
		return true, n.record(node, ActionKill, err)
	}
	return true, n.record(node, ActionKill, nil)
}

// heal resumes or restarts node after fault.
func (n *nemesis) heal(node, pid int) error {
	if n.cfg.Kind == Pause {
		err := signal(pid, sigCont)
		if err != nil {
			err = fmt.Errorf("nemesis: resuming node %d (pid %d): %w", node, pid, err)
		}
		return n.record(node, ActionResume, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), healTimeout)
	defer cancel()
	_, err := n.script(ctx, "restart-node", strconv.Itoa(node))
	return n.record(node, ActionRestart, err)
}

// pids returns the pid of each node's server, all of which must run.
func (n *nemesis) pids(ctx context.Context) ([]int, error) {
	out, err := n.script(ctx, "pids")
	if err != nil {
		return nil, err
	}
	pids, err := parsePids(out)
	if err != nil {
		return nil, fmt.Errorf("nemesis: %s pids: %w", n.cfg.Script, err)
	}
	for i, pid := range pids {
		if pid == 0 {
			return nil, fmt.Errorf("nemesis: node %d of %s is down, and not by a fault of the nemesis: faulting another node could cost the cluster its majority", i, n.cfg.Script)
		}
	}
	return pids, nil
}

// parsePids parses the output of `SCRIPT pids`: a line "I PID" per node,
// I counting from 0, PID - for a node that is down (0 in the result).
func parsePids(out []byte) ([]int, error) {
	var pids []int
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %q is not an index and a pid", strings.TrimSpace(line))
		}
		i, err := strconv.Atoi(f[0])
		if err != nil || i != len(pids) {
			return nil, fmt.Errorf("line %q: want node %d", strings.TrimSpace(line), len(pids))
		}
		pid := 0
		if f[1] != "-" {
			pid, err = strconv.Atoi(f[1])
			if err != nil || pid <= 0 {
				return nil, fmt.Errorf("line %q: bad pid %q", strings.TrimSpace(line), f[1])
			}
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		return nil, errors.New("no nodes")
	}
	return pids, nil
}

// script runs the cluster's script with args and Dir, and returns its
// stdout; its error holds the script's stderr.
func (n *nemesis) script(ctx context.Context, args ...string) ([]byte, error) {
	if n.cfg.Dir != "" {
		args = append(args, n.cfg.Dir)
	}
	cmd := exec.CommandContext(ctx, n.cfg.Script, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	// A server the script leaves running must not hold the run up by
	// holding a pipe.
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("nemesis: %s %s: %w", n.cfg.Script, strings.Join(args, " "), err)
		}
		return nil, fmt.Errorf("nemesis: %s %s: %w: %s", n.cfg.Script, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}
