package report

import (
	"slices"
	"testing"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/nemesis"
)

// TestOverTimeMarksFaults: the chart of a run marks each fault where it
// happened, a node's by the node and a partition by the links it cut.
func TestOverTimeMarksFaults(t *testing.T) {
	h := &history.History{}
	for i := range 20 {
		h.Txns = append(h.Txns, history.Txn{Status: history.Committed, Start: int64(i) * 1e8, End: int64(i+1) * 1e8})
	}
	faults := []nemesis.Event{
		{At: 300 * time.Millisecond, Node: 1, Action: nemesis.ActionKill},
		{At: 500 * time.Millisecond, Node: -1, Action: nemesis.ActionPartition, Cuts: [][2]int{{0, 1}, {0, 2}}},
		{At: 1500 * time.Millisecond, Node: -1, Action: nemesis.ActionHeal},
	}
	c := overTime(h, faults)
	if c == nil {
		t.Fatal("no chart of a timed history")
	}
	var labels []string
	for _, m := range c.Marks {
		labels = append(labels, m.Label)
	}
	if want := []string{"node 1 kill", "partition 0-1 0-2", "heal"}; !slices.Equal(labels, want) {
		t.Errorf("marks %q, want %q", labels, want)
	}
}
