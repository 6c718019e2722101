// Package nemesis injects faults into a cluster the project started
// itself while a run drives it: on a schedule it pauses (SIGSTOP) or kills
// (SIGKILL) one node at a time, or cuts the network between nodes, and
// heals the fault again, so that the transactions caught in a fault end
// unknown or aborted, never lost.
//
// A cluster is named by its script (scripts/etcd.sh, scripts/galera.sh, or
// any script with the same subcommands):
//
//	SCRIPT pids [DIR]            prints a line per node: its index from 0
//	                             and its server's pid, or - if it is down
//	SCRIPT restart-node I [DIR]  starts the killed node I again and waits
//	                             until it has rejoined the cluster
//	SCRIPT partition CUTS [DIR]  cuts the links CUTS lists ("0-1,0-2"),
//	                             for a cluster whose nodes run in network
//	                             namespaces (scripts/netns.sh)
//	SCRIPT lossy I PERCENT [DIR] makes node I drop PERCENT of the packets
//	                             that reach it
//	SCRIPT skew I OFFSET [DIR]   sets node I's clock OFFSET seconds off
//	                             ("+30", "-2.5"), a cluster started
//	                             under libfaketime
//	SCRIPT heal [DIR]            restores every link (and every clock)
//	SCRIPT leader [DIR]          prints the index of the leading node
//
// Only one node is paused or killed at a time, so a cluster of three
// keeps its majority, and Run heals the fault it made before it returns,
// even when its context ends in the middle of a fault: it never leaves a
// node paused or down, or a link cut.
//
// Partitions are those of Jepsen's nemeses (jepsen.nemesis): random
// halves, one node isolated, the leader isolated, a bridge (two halves
// that one node joins) and a majorities ring (each node sees a majority,
// no two the same one).
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
	"slices"
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
	// Partition cuts links between nodes with `SCRIPT partition` and
	// restores them with `SCRIPT heal`: packets are dropped, so that
	// requests across a cut time out. Config.Partition says which.
	Partition = "partition"
	// Loss makes one node at a time drop a share of the packets that
	// reach it (Config.Loss), with `SCRIPT lossy I PERCENT`, until
	// `SCRIPT heal`: requests to it and from its peers are retried or
	// time out.
	Loss = "loss"
)

// DefaultLoss is the default of Config.Loss, in percent.
const DefaultLoss = 30

// Clock sets one node's clock off at a time, by up to Config.Skew either
// way, with `SCRIPT skew I OFFSET` (a jump), until `SCRIPT heal` sets it
// right: for servers that read the clock through libc, under libfaketime.
const Clock = "clock"

// DefaultSkew is the default of Config.Skew.
const DefaultSkew = 30 * time.Second

// Partitions, the values of Config.Partition.
const (
	// Halves cuts the nodes into two random halves, the smaller first.
	Halves = "halves"
	// One isolates one random node from the others.
	One = "one"
	// Leader isolates the node `SCRIPT leader` names.
	Leader = "leader"
	// Bridge cuts the nodes into two halves that one node, in both,
	// joins (Jepsen's bridge).
	Bridge = "bridge"
	// MajoritiesRing puts the nodes on a random ring, each seeing its
	// neighbours: a majority each, no two the same (five nodes or more).
	MajoritiesRing = "majorities-ring"
)

// partitions lists the values of Config.Partition.
var partitions = []string{Halves, One, Leader, Bridge, MajoritiesRing}

// Actions of events.
const (
	ActionPause   = "pause"
	ActionResume  = "resume"
	ActionKill    = "kill"
	ActionRestart = "restart"
	// ActionPartition cuts the links of Event.Cuts; ActionLoss makes
	// Event.Node drop Event.Loss percent of its packets; ActionHeal
	// restores every link.
	ActionPartition = "partition"
	ActionLoss      = "loss"
	ActionHeal      = "heal"
	// ActionSkew sets Event.Node's clock Event.Skew off.
	ActionSkew = "skew"
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
	// Kind is the kind of fault: Pause, Kill, Partition, Loss or Clock.
	Kind string
	// Partition, for Kind Partition, is which: Halves (the default),
	// One, Leader, Bridge or MajoritiesRing.
	Partition string
	// Loss, for Kind Loss, is the percentage of packets dropped, 1 to
	// 100 [DefaultLoss].
	Loss int
	// Skew, for Kind Clock, bounds how far a clock is set off, either
	// way [DefaultSkew]; each fault draws an offset of at least half of
	// it.
	Skew time.Duration
	// Script is the path of the script that started the cluster
	// (scripts/etcd.sh, scripts/galera.sh, or any script with the
	// subcommands pids and restart-node I).
	Script string
	// Dir is the script's DIR argument; empty means the script's default.
	Dir string
	// Interval is the quiet time before each fault: from the start of
	// Run, then from the end of the previous fault's healing [5s].
	Interval time.Duration
	// Duration is how long a node stays paused or down, or the links
	// cut, before the fault is healed [2s].
	Duration time.Duration
	// Seed chooses the node each fault hits.
	Seed int64
	// Log, if not nil, receives a line per event (Event.String).
	Log io.Writer
	// OnEvent, if set, is called with each event as it happens, one call
	// at a time (a run records them in its history).
	OnEvent func(Event)
	// Start is the origin of the events' times; zero means when Run
	// starts. A run gives the start of its transactions' clock.
	Start time.Time
}

// Event is a fault or its healing.
type Event struct {
	// At is the time since Config.Start.
	At time.Duration
	// Node is the node's index, from 0; -1 for a partition and for
	// every healing of the script's (ActionHeal).
	Node int
	// Action is ActionPause, ActionResume, ActionKill, ActionRestart,
	// ActionPartition, ActionLoss, ActionSkew or ActionHeal.
	Action string
	// Cuts, for ActionPartition, are the links cut, each a pair of
	// nodes, the lower first, in order.
	Cuts [][2]int
	// Loss, for ActionLoss, is the percentage of packets Node drops.
	Loss int
	// Skew, for ActionSkew, is how far Node's clock was set off.
	Skew time.Duration
	// Err is why the action failed, nil if it succeeded.
	Err error
}

// String returns the event as a line of the log without its newline, as
// in "12.004s node 1 kill" or "20.100s partition 0-1 0-2".
func (e Event) String() string {
	s := fmt.Sprintf("%.3fs %s", e.At.Seconds(), e.What())
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// What says what happened, without the time or the error: "node 1 kill",
// "partition 0-1 0-2", "heal".
func (e Event) What() string {
	switch e.Action {
	case ActionPartition:
		return "partition " + strings.ReplaceAll(cutSpec(e.Cuts), ",", " ")
	case ActionLoss:
		return fmt.Sprintf("node %d loss %d%%", e.Node, e.Loss)
	case ActionSkew:
		return fmt.Sprintf("node %d clock %+.3fs", e.Node, e.Skew.Seconds())
	case ActionHeal:
		return "heal"
	}
	return fmt.Sprintf("node %d %s", e.Node, e.Action)
}

// Parse returns the schedule a flag names, as a Config with Kind,
// Partition, Interval and Duration set (zero durations: not named):
//
//	KIND[=P][,every=DURATION][,heal=DURATION]
//
// KIND is pause, kill, loss, clock or partition, P a percentage (for
// loss; DefaultLoss when left out), the largest offset (for clock, such
// as 30s; DefaultSkew when left out) or one of the partitions (for
// partition; halves when left out); every is the quiet time before each
// fault (Interval), heal how long the fault lasts (Duration), as in
// "partition=majorities-ring,every=10s,heal=10s". Case and spaces around
// the parts are ignored; "" and "none" mean no faults (a zero Config).
func Parse(spec string) (Config, error) {
	var c Config
	parts := strings.Split(strings.ToLower(strings.TrimSpace(spec)), ",")
	kind, partition, _ := strings.Cut(strings.TrimSpace(parts[0]), "=")
	switch {
	case (kind == "" || kind == "none") && partition == "" && len(parts) == 1:
		return c, nil
	case kind == Partition && partition == "":
		c.Kind, c.Partition = kind, Halves
	case kind == Partition && slices.Contains(partitions, partition):
		c.Kind, c.Partition = kind, partition
	case kind == Partition:
		return c, fmt.Errorf("nemesis: unknown partition %q (want one of %s)", partition, strings.Join(partitions, ", "))
	case (kind == Pause || kind == Kill) && partition == "":
		c.Kind = kind
	case kind == Clock:
		c.Kind, c.Skew = kind, DefaultSkew
		if partition != "" {
			d, err := time.ParseDuration(partition)
			if err != nil || d < time.Millisecond {
				return Config{}, fmt.Errorf("nemesis: clock=%s: want the largest offset, a duration of 1ms or more such as clock=30s", partition)
			}
			c.Skew = d
		}
	case kind == Loss:
		c.Kind, c.Loss = kind, DefaultLoss
		if partition != "" {
			n, err := strconv.Atoi(strings.TrimSuffix(partition, "%"))
			if err != nil || n < 1 || n > 100 {
				return Config{}, fmt.Errorf("nemesis: loss=%s: want a percentage from 1 to 100, such as loss=30%%", partition)
			}
			c.Loss = n
		}
	default:
		return c, fmt.Errorf("nemesis: unknown fault %q (want %s, %s, %s[=PERCENT], %s[=MAX] or %s=P with P one of %s, then ,every=DURATION and ,heal=DURATION if you like)",
			spec, Pause, Kill, Loss, Clock, Partition, strings.Join(partitions, ", "))
	}
	for _, part := range parts[1:] {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		d, err := time.ParseDuration(strings.TrimSpace(value))
		if err != nil || d <= 0 {
			return Config{}, fmt.Errorf("nemesis: %q in %q: want every=DURATION or heal=DURATION, a positive duration such as 10s", part, spec)
		}
		switch strings.TrimSpace(name) {
		case "every":
			c.Interval = d
		case "heal":
			c.Duration = d
		default:
			return Config{}, fmt.Errorf("nemesis: %q in %q: want every=DURATION or heal=DURATION", part, spec)
		}
	}
	return c, nil
}

// withDefaults returns c with its zero durations set to their defaults.
func (c Config) withDefaults() Config {
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Kind == Partition && c.Partition == "" {
		c.Partition = Halves
	}
	if c.Kind == Loss && c.Loss == 0 {
		c.Loss = DefaultLoss
	}
	if c.Kind == Clock && c.Skew == 0 {
		c.Skew = DefaultSkew
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
	case Partition:
		if !slices.Contains(partitions, c.Partition) {
			return fmt.Errorf("nemesis: unknown partition %q (want one of %s)", c.Partition, strings.Join(partitions, ", "))
		}
	case Loss:
		if c.Loss < 1 || c.Loss > 100 {
			return fmt.Errorf("nemesis: loss of %d%% (want 1 to 100)", c.Loss)
		}
	case Clock:
		if c.Skew < time.Millisecond {
			return fmt.Errorf("nemesis: clock skew of %v (want 1ms or more)", c.Skew)
		}
	case "":
		return fmt.Errorf("nemesis: no kind of fault (want %s, %s, %s, %s or %s)", Pause, Kill, Loss, Clock, Partition)
	default:
		return fmt.Errorf("nemesis: unknown kind %q (want %s, %s, %s, %s or %s)", c.Kind, Pause, Kill, Loss, Clock, Partition)
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
	start := cfg.Start
	if start.IsZero() {
		start = time.Now()
	}
	n := &nemesis{
		cfg:   cfg,
		start: start,
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
		if cfg.Kind == Partition || cfg.Kind == Loss || cfg.Kind == Clock {
			if err := n.scriptFault(ctx, len(pids)); err != nil {
				return n.events, err
			}
			if ctx.Err() != nil {
				return n.events, nil
			}
			timer.Reset(cfg.Interval)
			continue
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
	n.add(Event{At: time.Since(n.start), Node: node, Action: action, Err: err})
	return err
}

// add records e, logs it and hands it to OnEvent.
func (n *nemesis) add(e Event) {
	n.events = append(n.events, e)
	if n.cfg.Log != nil {
		fmt.Fprintf(n.cfg.Log, "nemesis: %s\n", e)
	}
	if n.cfg.OnEvent != nil {
		n.cfg.OnEvent(e)
	}
}

// scriptFault makes a fault of the cluster's script: it cuts the links of
// the nodes as cfg.Partition says, makes one of them lose packets (Kind
// Loss) or sets one's clock off (Kind Clock); then it waits cfg.Duration
// (or until ctx ends) and heals it. The script's action is not cut short
// when ctx ends: a fault is made whole, then healed.
func (n *nemesis) scriptFault(ctx context.Context, nodes int) error {
	if n.cfg.Kind == Clock {
		node := n.rng.IntN(nodes)
		// At least half the bound, either way: a skew that shows.
		skew := n.cfg.Skew/2 + time.Duration(n.rng.Int64N(int64(n.cfg.Skew/2)+1))
		if n.rng.IntN(2) == 0 {
			skew = -skew
		}
		skew = skew.Round(time.Millisecond)
		set, cancel := context.WithTimeout(context.WithoutCancel(ctx), healTimeout)
		_, err := n.script(set, "skew", strconv.Itoa(node), fmt.Sprintf("%+.3f", skew.Seconds()))
		cancel()
		n.add(Event{At: time.Since(n.start), Node: node, Action: ActionSkew, Skew: skew, Err: err})
		if err != nil {
			return errors.Join(err, n.healLinks())
		}
		return n.waitAndHeal(ctx)
	}
	if n.cfg.Kind == Loss {
		node := n.rng.IntN(nodes)
		cut, cancel := context.WithTimeout(context.WithoutCancel(ctx), healTimeout)
		_, err := n.script(cut, "lossy", strconv.Itoa(node), strconv.Itoa(n.cfg.Loss))
		cancel()
		n.add(Event{At: time.Since(n.start), Node: node, Action: ActionLoss, Loss: n.cfg.Loss, Err: err})
		if err != nil {
			return errors.Join(err, n.healLinks())
		}
		return n.waitAndHeal(ctx)
	}
	leader := -1
	if n.cfg.Partition == Leader {
		out, err := n.script(ctx, "leader")
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		leader, err = strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil || leader < 0 || leader >= nodes {
			return fmt.Errorf("nemesis: %s leader printed %q, not a node's index (0 to %d)", n.cfg.Script, strings.TrimSpace(string(out)), nodes-1)
		}
	}
	cuts, err := Cuts(n.cfg.Partition, nodes, leader, n.rng)
	if err != nil {
		return err
	}
	cut, cancel := context.WithTimeout(context.WithoutCancel(ctx), healTimeout)
	_, err = n.script(cut, "partition", cutSpec(cuts))
	cancel()
	n.recordCuts(cuts, err)
	if err != nil {
		// A partition half made is healed all the same.
		return errors.Join(err, n.healLinks())
	}
	return n.waitAndHeal(ctx)
}

// waitAndHeal waits cfg.Duration, or until ctx ends, and restores every
// link.
func (n *nemesis) waitAndHeal(ctx context.Context) error {
	timer := time.NewTimer(n.cfg.Duration)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
	return n.healLinks()
}

// healLinks restores every link, with a context of its own.
func (n *nemesis) healLinks() error {
	ctx, cancel := context.WithTimeout(context.Background(), healTimeout)
	defer cancel()
	_, err := n.script(ctx, "heal")
	return n.record(-1, ActionHeal, err)
}

// recordCuts records a partition.
func (n *nemesis) recordCuts(cuts [][2]int, err error) {
	n.add(Event{At: time.Since(n.start), Node: -1, Action: ActionPartition, Cuts: cuts, Err: err})
}

// Cuts returns the links a partition of nodes nodes cuts, each a pair,
// the lower node first, in order; leader is the leading node's index,
// for Leader. The random choices are rng's.
func Cuts(partition string, nodes, leader int, rng *rand.Rand) ([][2]int, error) {
	if nodes < 2 {
		return nil, fmt.Errorf("nemesis: a partition needs two nodes or more, not %d", nodes)
	}
	perm := rng.Perm(nodes)
	// side[i] is the set of groups node i is in, as bits: two nodes
	// keep their link when they share one.
	side := make([]uint8, nodes)
	switch partition {
	case Halves:
		for k, i := range perm {
			side[i] = 1 << min(k/(nodes/2), 1)
		}
	case One, Leader:
		alone := perm[0]
		if partition == Leader {
			if leader < 0 || leader >= nodes {
				return nil, fmt.Errorf("nemesis: no leader among %d nodes", nodes)
			}
			alone = leader
		}
		for i := range side {
			side[i] = 1
		}
		side[alone] = 2
	case Bridge:
		if nodes < 3 {
			return nil, fmt.Errorf("nemesis: a bridge needs three nodes or more, not %d", nodes)
		}
		// perm[0] bridges the two halves of the rest.
		side[perm[0]] = 3
		for k, i := range perm[1:] {
			side[i] = 1 << min(k/((nodes-1)/2), 1)
		}
	case MajoritiesRing:
		if nodes < 5 {
			return nil, fmt.Errorf("nemesis: a majorities ring needs five nodes or more (with fewer, every node sees every other), not %d", nodes)
		}
		// Each node sees the nodes within reach of it on the ring
		// perm: itself and reach on each side, at least a majority
		// (nodes/2+1), and no more than it needs.
		reach := (nodes/2 + 1) / 2
		pos := make([]int, nodes)
		for k, i := range perm {
			pos[i] = k
		}
		var cuts [][2]int
		for a := 0; a < nodes; a++ {
			for b := a + 1; b < nodes; b++ {
				d := (pos[a] - pos[b] + nodes) % nodes
				if min(d, nodes-d) > reach {
					cuts = append(cuts, [2]int{a, b})
				}
			}
		}
		return cuts, nil
	default:
		return nil, fmt.Errorf("nemesis: unknown partition %q (want one of %s)", partition, strings.Join(partitions, ", "))
	}
	var cuts [][2]int
	for a := 0; a < nodes; a++ {
		for b := a + 1; b < nodes; b++ {
			if side[a]&side[b] == 0 {
				cuts = append(cuts, [2]int{a, b})
			}
		}
	}
	return cuts, nil
}

// cutSpec writes cuts as `SCRIPT partition` takes them: "0-1,0-2".
func cutSpec(cuts [][2]int) string {
	s := make([]string, len(cuts))
	for i, c := range cuts {
		s[i] = fmt.Sprintf("%d-%d", c[0], c[1])
	}
	return strings.Join(s, ",")
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
