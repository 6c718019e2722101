package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeScript is a cluster script whose nodes are sleep processes: enough
// to test the schedule and the healing without a database.
const fakeScript = `#!/usr/bin/env bash
set -euo pipefail
case $1 in
pids)
	for i in 0 1 2; do
		p=$(<"$2/$i.pid")
		if kill -0 "$p" 2>/dev/null && [[ $(ps -o stat= -p "$p") != Z* ]]; then
			echo "$i $p"
		else
			echo "$i -"
		fi
	done
	;;
restart-node)
	if [[ -e $3/fail ]]; then
		echo "boom: node $2 will not start" >&2
		exit 1
	fi
	sleep 300 </dev/null >/dev/null 2>&1 &
	echo $! >"$3/$2.pid"
	echo "started node $2" >&2
	;;
partition)
	if [[ -e $3/fail ]]; then
		echo "boom: no partition $2" >&2
		exit 1
	fi
	echo "$2" >"$3/cuts"
	;;
heal)
	rm -f "$2/cuts"
	echo healed >>"$2/heals"
	;;
leader)
	echo 1
	;;
lossy | skew)
	echo "$2 $3" >"$4/cuts"
	;;
*)
	exit 2
	;;
esac
`

func writeScript(t *testing.T, dir, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, "cluster.sh")
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, fakeScript, 0o755)
	plain := filepath.Join(dir, "plain.sh")
	if err := os.WriteFile(plain, []byte(fakeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want string // in the error; "" for none
	}{
		{"pause", Config{Kind: Pause, Script: script}, ""},
		{"kill with durations", Config{Kind: Kill, Script: script, Interval: time.Second, Duration: time.Millisecond}, ""},
		{"no kind", Config{Script: script}, "no kind"},
		{"unknown kind", Config{Kind: "split", Script: script}, `unknown kind "split"`},
		{"unknown partition", Config{Kind: Partition, Partition: "ring", Script: script}, `unknown partition "ring"`},
		{"kind in capitals", Config{Kind: "Pause", Script: script}, `unknown kind "Pause"`},
		{"no script", Config{Kind: Pause}, "no cluster script"},
		{"missing script", Config{Kind: Pause, Script: filepath.Join(dir, "missing.sh")}, "no such file"},
		{"script is a dir", Config{Kind: Kill, Script: dir}, "is not a file"},
		{"script not executable", Config{Kind: Kill, Script: plain}, "is not executable"},
		{"negative interval", Config{Kind: Pause, Script: script, Interval: -time.Second}, "interval -1s is not positive"},
		{"negative duration", Config{Kind: Kill, Script: script, Duration: -1}, "duration -1ns is not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error with %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Validate() = %v, want an error with %q", err, tt.want)
			}
			if tt.want == "" {
				return
			}
			// Run refuses what Validate refuses, before it runs anything.
			events, err := Run(context.Background(), tt.cfg)
			if err == nil || len(events) != 0 {
				t.Fatalf("Run() = %v, %v; want no events and an error", events, err)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c := Config{Kind: Pause}.withDefaults()
	if c.Interval != DefaultInterval || c.Duration != DefaultDuration {
		t.Errorf("defaults: interval %v, duration %v; want %v, %v", c.Interval, c.Duration, DefaultInterval, DefaultDuration)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		spec string
		want Config
		ok   bool
	}{
		{"pause", Config{Kind: Pause}, true},
		{"kill", Config{Kind: Kill}, true},
		{" KILL ", Config{Kind: Kill}, true},
		{"", Config{}, true},
		{"none", Config{}, true},
		{"partition", Config{Kind: Partition, Partition: Halves}, true},
		{"partition=leader", Config{Kind: Partition, Partition: Leader}, true},
		{"Partition=Majorities-Ring", Config{Kind: Partition, Partition: MajoritiesRing}, true},
		{"partition=majorities-ring,every=10s,heal=2s", Config{Kind: Partition, Partition: MajoritiesRing, Interval: 10 * time.Second, Duration: 2 * time.Second}, true},
		{"kill, heal=1m", Config{Kind: Kill, Duration: time.Minute}, true},
		{"loss", Config{Kind: Loss, Loss: DefaultLoss}, true},
		{"loss=5%,every=2s", Config{Kind: Loss, Loss: 5, Interval: 2 * time.Second}, true},
		{"loss=100", Config{Kind: Loss, Loss: 100}, true},
		{"loss=0", Config{}, false},
		{"clock", Config{Kind: Clock, Skew: DefaultSkew}, true},
		{"clock=2m,heal=5s", Config{Kind: Clock, Skew: 2 * time.Minute, Duration: 5 * time.Second}, true},
		{"clock=0s", Config{}, false},
		{"clock=soon", Config{}, false},
		{"loss=101%", Config{}, false},
		{"kill,heal=0s", Config{}, false},
		{"kill,heal=soon", Config{}, false},
		{"kill,often=1s", Config{}, false},
		{"none,every=1s", Config{}, false},
		{"partition=ring", Config{}, false},
		{"kill=one", Config{}, false},
		{"none=one", Config{}, false},
		{"pause,kill", Config{}, false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.spec)
		if got.Kind != tt.want.Kind || got.Partition != tt.want.Partition || got.Loss != tt.want.Loss || got.Skew != tt.want.Skew || got.Interval != tt.want.Interval || got.Duration != tt.want.Duration || (err == nil) != tt.ok {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, ok %v", tt.spec, got, err, tt.want, tt.ok)
		}
	}
}

func TestParsePids(t *testing.T) {
	tests := []struct {
		out  string
		want []int
		ok   bool
	}{
		{"0 10\n1 11\n2 12\n", []int{10, 11, 12}, true},
		{"0 10\n1 -\n2 12", []int{10, 0, 12}, true},
		{"\n0 10\n\n", []int{10}, true},
		{"", nil, false},
		{"1 10\n", nil, false},
		{"0 10\n0 11\n", nil, false},
		{"0 x\n", nil, false},
		{"0 -5\n", nil, false},
		{"0 10 extra\n", nil, false},
	}
	for _, tt := range tests {
		got, err := parsePids([]byte(tt.out))
		if !slices.Equal(got, tt.want) || (err == nil) != tt.ok {
			t.Errorf("parsePids(%q) = %v, %v; want %v, ok %v", tt.out, got, err, tt.want, tt.ok)
		}
	}
}

func TestEventString(t *testing.T) {
	e := Event{At: 12004 * time.Millisecond, Node: 1, Action: ActionKill}
	if got, want := e.String(), "12.004s node 1 kill"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// fakeCluster starts the fake script's three nodes in a new dir and stops
// them when the test ends.
func fakeCluster(t *testing.T) (script, dir string) {
	t.Helper()
	dir = t.TempDir()
	script = writeScript(t, dir, fakeScript, 0o755)
	t.Cleanup(func() {
		for _, pid := range readPids(t, dir) {
			syscall.Kill(pid, syscall.SIGCONT)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	n := &nemesis{cfg: Config{Script: script, Dir: dir}}
	for i := range 3 {
		if _, err := n.script(context.Background(), "restart-node", strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	return script, dir
}

func readPids(t *testing.T, dir string) []int {
	var pids []int
	for i := range 3 {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)+".pid"))
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procState returns the state letter of a process from /proc (R, S, T
// for stopped, Z, ...), or 0 if it has none.
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// checkEvents checks that events are faults of kind each followed by its
// healing on the same node, without errors, and returns the faults.
func checkEvents(t *testing.T, events []Event, kind string) (faults int) {
	t.Helper()
	fault, heal := ActionPause, ActionResume
	if kind == Kill {
		fault, heal = ActionKill, ActionRestart
	}
	if len(events)%2 != 0 {
		t.Errorf("%d events, want pairs of a fault and its healing", len(events))
	}
	for i, e := range events {
		want := fault
		if i%2 == 1 {
			want = heal
			if e.Node != events[i-1].Node {
				t.Errorf("event %d: %v heals node %d, want node %d", i, e, e.Node, events[i-1].Node)
			}
		}
		if e.Action != want {
			t.Errorf("event %d: %v, want a %s", i, e, want)
		}
		if e.Err != nil {
			t.Errorf("event %d: %v", i, e)
		}
		if i > 0 && e.At < events[i-1].At {
			t.Errorf("event %d: %v before event %d: %v", i, e, i-1, events[i-1])
		}
	}
	return len(events) / 2
}

// cancelAfter is a Log that keeps what Run logs and cancels Run's
// context once it has logged n events (a line each), so that a test
// waits for events, not for a time in which a loaded machine may have
// done fewer.
type cancelAfter struct {
	strings.Builder
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.n -= strings.Count(string(p), "\n"); c.n <= 0 {
		c.cancel()
	}
	return c.Builder.Write(p)
}

// runTimeout bounds a Run that a test ends by cancelling it, so that one
// that misses the cancellation fails rather than hangs.
const runTimeout = 2 * time.Minute

func TestRunFake(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to check processes' states")
	}
	for _, kind := range []string{Pause, Kill} {
		t.Run(kind, func(t *testing.T) {
			script, dir := fakeCluster(t)
			before := readPids(t, dir)
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			// Three faults and their healings, then Run ends.
			log := &cancelAfter{n: 6, cancel: cancel}
			events, err := Run(ctx, Config{Kind: kind, Script: script, Dir: dir,
				Interval: 50 * time.Millisecond, Duration: 50 * time.Millisecond, Seed: 1, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			if n := checkEvents(t, events, kind); n != 3 {
				t.Errorf("%d faults, want 3 before the context ended (after %v at most)", n, runTimeout)
			}
			if lines := strings.Count(log.String(), "\n"); lines != len(events) {
				t.Errorf("%d lines logged for %d events:\n%s", lines, len(events), log.String())
			}
			after := readPids(t, dir)
			for i, pid := range after {
				if s := procState(pid); s == 0 || s == 'T' || s == 'Z' {
					t.Errorf("node %d (pid %d) is in state %q after Run", i, pid, s)
				}
			}
			if changed := !slices.Equal(before, after); changed != (kind == Kill) {
				t.Errorf("pids %v before, %v after", before, after)
			}
		})
	}
}

// TestRunHealsOnCancel ends Run in the middle of a fault, as soon as it
// is logged: Run must heal the node before it returns, without waiting
// for the fault's hour to pass.
func TestRunHealsOnCancel(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to check processes' states")
	}
	for _, kind := range []string{Pause, Kill} {
		t.Run(kind, func(t *testing.T) {
			script, dir := fakeCluster(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := &cancelAfter{n: 1, cancel: cancel}
			type result struct {
				events []Event
				err    error
			}
			done := make(chan result, 1)
			go func() {
				events, err := Run(ctx, Config{Kind: kind, Script: script, Dir: dir,
					Interval: 10 * time.Millisecond, Duration: time.Hour, Log: log})
				done <- result{events, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(runTimeout):
				t.Fatalf("Run still running %v after the start, its context cancelled at the first fault", runTimeout)
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			if n := checkEvents(t, res.events, kind); n != 1 {
				t.Errorf("%d faults, want 1", n)
			}
			for i, pid := range readPids(t, dir) {
				if s := procState(pid); s == 0 || s == 'T' || s == 'Z' {
					t.Errorf("node %d (pid %d) is in state %q after Run", i, pid, s)
				}
			}
		})
	}
}

func TestRunScriptError(t *testing.T) {
	script, dir := fakeCluster(t)
	if err := os.WriteFile(filepath.Join(dir, "fail"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := Run(ctx, Config{Kind: Kill, Script: script, Dir: dir,
		Interval: 10 * time.Millisecond, Duration: 10 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "boom: node") || !strings.Contains(err.Error(), "restart-node") {
		t.Fatalf("Run() error = %v, want the script's stderr", err)
	}
	if len(events) != 2 || events[1].Action != ActionRestart || events[1].Err == nil {
		t.Errorf("events %v, want a kill and a failed restart", events)
	}
}

func TestRunRefusesNodeDown(t *testing.T) {
	script, dir := fakeCluster(t)
	pid := readPids(t, dir)[2]
	syscall.Kill(pid, syscall.SIGKILL)
	if err := awaitExit(pid, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	events, err := Run(context.Background(), Config{Kind: Pause, Script: script, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "node 2") || len(events) != 0 {
		t.Fatalf("Run() = %v, %v; want no events and an error about node 2", events, err)
	}
}

// TestCuts checks each partition's shape on clusters of 2 to 9 nodes and
// many seeds: the links left are those the partition describes.
func TestCuts(t *testing.T) {
	for nodes := 2; nodes <= 9; nodes++ {
		for seed := range uint64(20) {
			for _, p := range partitions {
				rng := rand.New(rand.NewPCG(seed, 1))
				leader := int(seed) % nodes
				cuts, err := Cuts(p, nodes, leader, rng)
				tooFew := p == Bridge && nodes < 3 || p == MajoritiesRing && nodes < 5
				if tooFew {
					if err == nil {
						t.Errorf("%s of %d nodes: no error", p, nodes)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s of %d nodes: %v", p, nodes, err)
				}
				checkCuts(t, p, nodes, leader, cuts)
			}
		}
	}
	if _, err := Cuts(Leader, 3, 3, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("a leader out of range: no error")
	}
}

func checkCuts(t *testing.T, p string, nodes, leader int, cuts [][2]int) {
	t.Helper()
	linked := make([][]bool, nodes)
	for i := range linked {
		linked[i] = make([]bool, nodes)
		for j := range linked[i] {
			linked[i][j] = true
		}
	}
	for k, c := range cuts {
		if c[0] >= c[1] || c[1] >= nodes || k > 0 && !(cuts[k-1][0] < c[0] || cuts[k-1][0] == c[0] && cuts[k-1][1] < c[1]) {
			t.Fatalf("%s of %d nodes: cuts %v not ordered pairs of nodes, the lower first", p, nodes, cuts)
		}
		linked[c[0]][c[1]], linked[c[1]][c[0]] = false, false
	}
	degree := func(i int) int {
		d := 0
		for j := range nodes {
			if j != i && linked[i][j] {
				d++
			}
		}
		return d
	}
	// cliques reports the sizes of the groups of nodes linked to each
	// other and to no one else, if the links are such groups.
	cliques := func(among []int) ([]int, bool) {
		var sizes []int
		seen := map[int]bool{}
		for _, i := range among {
			if seen[i] {
				continue
			}
			n := 0
			for _, j := range among {
				if linked[i][j] || i == j {
					if seen[j] {
						return nil, false
					}
					seen[j] = true
					n++
				}
			}
			for _, j := range among {
				for _, k := range among {
					if seen[j] && seen[k] && (linked[i][j] || i == j) && (linked[i][k] || i == k) && j != k && !linked[j][k] {
						return nil, false
					}
				}
			}
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
		return sizes, true
	}
	all := make([]int, nodes)
	for i := range all {
		all[i] = i
	}
	switch p {
	case Halves:
		if sizes, ok := cliques(all); !ok || !slices.Equal(sizes, []int{nodes / 2, nodes - nodes/2}) {
			t.Errorf("halves of %d nodes: groups %v (%v), cuts %v", nodes, sizes, ok, cuts)
		}
	case One, Leader:
		alone := -1
		for i := range nodes {
			if degree(i) == 0 && (p == One || i == leader) {
				alone = i
			}
		}
		rest := slices.DeleteFunc(slices.Clone(all), func(i int) bool { return i == alone })
		sizes, ok := cliques(rest)
		if alone < 0 || !ok || len(sizes) != 1 || p == Leader && alone != leader {
			t.Errorf("%s of %d nodes (leader %d): alone %d, the rest %v (%v)", p, nodes, leader, alone, sizes, ok)
		}
	case Bridge:
		bridge := -1
		for i := range nodes {
			if degree(i) == nodes-1 {
				bridge = i
			}
		}
		rest := slices.DeleteFunc(slices.Clone(all), func(i int) bool { return i == bridge })
		sizes, ok := cliques(rest)
		if bridge < 0 || !ok || !slices.Equal(sizes, []int{(nodes - 1) / 2, nodes - 1 - (nodes-1)/2}) {
			t.Errorf("bridge of %d nodes: bridge %d, halves %v (%v), cuts %v", nodes, bridge, sizes, ok, cuts)
		}
	case MajoritiesRing:
		views := map[string]bool{}
		for i := range nodes {
			if degree(i)+1 < nodes/2+1 || degree(i) == nodes-1 {
				t.Errorf("majorities ring of %d nodes: node %d sees %d others, cuts %v", nodes, i, degree(i), cuts)
			}
			views[fmt.Sprint(linked[i])] = true
		}
		if len(views) != nodes {
			t.Errorf("majorities ring of %d nodes: %d distinct views, want one a node", nodes, len(views))
		}
	}
}

// TestRunPartitionFake partitions the fake cluster three times and
// heals it each time, then once more with the context ended in the
// middle of the partition: the links are healed before Run returns.
func TestRunPartitionFake(t *testing.T) {
	for _, p := range []string{Halves, Leader} {
		t.Run(p, func(t *testing.T) {
			script, dir := fakeCluster(t)
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			log := &cancelAfter{n: 6, cancel: cancel}
			events, err := Run(ctx, Config{Kind: Partition, Partition: p, Script: script, Dir: dir,
				Interval: 50 * time.Millisecond, Duration: 50 * time.Millisecond, Seed: 1, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 6 {
				t.Fatalf("%d events, want 6: %v", len(events), events)
			}
			for i, e := range events {
				want := ActionPartition
				if i%2 == 1 {
					want = ActionHeal
				}
				if e.Action != want || e.Node != -1 || e.Err != nil || (want == ActionPartition) != (len(e.Cuts) > 0) {
					t.Errorf("event %d: %+v, want %s", i, e, want)
				}
				if p == Leader && want == ActionPartition && !slices.Equal(e.Cuts, [][2]int{{0, 1}, {1, 2}}) {
					t.Errorf("event %d: the leader, 1, isolated by cuts %v", i, e.Cuts)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "cuts")); !os.IsNotExist(err) {
				t.Errorf("links left cut after Run: %v", err)
			}
		})
	}
	t.Run("loss", func(t *testing.T) {
		events, dir := runFakeFor(t, Config{Kind: Loss, Loss: 15, Interval: 10 * time.Millisecond, Duration: 10 * time.Millisecond}, 4)
		if len(events) != 4 || events[0].Action != ActionLoss || events[0].Loss != 15 || events[0].Node < 0 || events[1].Action != ActionHeal {
			t.Errorf("events %v, want a loss and its healing, twice", events)
		}
		if got := events[0].What(); got != fmt.Sprintf("node %d loss 15%%", events[0].Node) {
			t.Errorf("What() = %q", got)
		}
		if _, err := os.Stat(filepath.Join(dir, "cuts")); !os.IsNotExist(err) {
			t.Errorf("loss left after Run: %v", err)
		}
	})
	t.Run("clock", func(t *testing.T) {
		events, dir := runFakeFor(t, Config{Kind: Clock, Skew: 10 * time.Second, Interval: time.Millisecond, Duration: time.Millisecond}, 20)
		signs := map[bool]bool{}
		for i, e := range events {
			if i%2 == 1 {
				if e.Action != ActionHeal {
					t.Errorf("event %d: %v, want a healing", i, e)
				}
				continue
			}
			if d := e.Skew.Abs(); e.Action != ActionSkew || d < 5*time.Second || d > 10*time.Second {
				t.Errorf("event %d: %v, want a clock set 5s to 10s off", i, e)
			}
			signs[e.Skew > 0] = true
		}
		if len(events) != 20 || len(signs) != 2 {
			t.Errorf("%d events, skews of %d signs: want 20, both signs", len(events), len(signs))
		}
		if _, err := os.Stat(filepath.Join(dir, "cuts")); !os.IsNotExist(err) {
			t.Errorf("a clock left off after Run: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		events, dir := runFakeFor(t, Config{Kind: Partition, Interval: 10 * time.Millisecond, Duration: time.Hour}, 1)
		if len(events) != 2 || events[1].Action != ActionHeal {
			t.Errorf("events %v, want a partition and its healing", events)
		}
		if _, err := os.Stat(filepath.Join(dir, "cuts")); !os.IsNotExist(err) {
			t.Errorf("links left cut after Run: %v", err)
		}
	})
}

// runFakeFor runs cfg (seed 1) on a new fake cluster until it has logged
// lines events, and returns them and the cluster's directory.
func runFakeFor(t *testing.T, cfg Config, lines int) ([]Event, string) {
	t.Helper()
	script, dir := fakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cfg.Script, cfg.Dir, cfg.Seed, cfg.Log = script, dir, 1, &cancelAfter{n: lines, cancel: cancel}
	events, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return events, dir
}
