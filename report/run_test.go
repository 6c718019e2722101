package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/nemesis"
	"github.com/isocheck/isocheck/run"
)

// TestOverTimeMarksFaults: the chart of a run marks each fault where it
// happened, a node's by the node and a partition by the links it cut,
// whether the faults come from the nemesis or from the history.
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
	r := RunOf("etcd://x", "lwt", &run.Summary{Planned: 20, Committed: 20}, h, faults)
	if r.OverTime == nil {
		t.Fatal("no chart of a timed history")
	}
	var labels []string
	for _, m := range r.OverTime.Marks {
		labels = append(labels, fmt.Sprintf("%.1f %s", m.X, m.Label))
	}
	if want := []string{"0.3 node 1 kill", "0.5 partition 0-1 0-2", "1.5 heal"}; !slices.Equal(labels, want) {
		t.Errorf("marks %q, want %q", labels, want)
	}

	// The same faults as a recorded history holds them.
	h.Faults = []history.Fault{{Time: 3e8, What: "node 1 kill"}, {Time: 5e8, What: "partition 0-1 0-2"}, {Time: history.NoTime, What: "heal"}}
	r = FaultsOf(h)
	if want := []string{"0.300s node 1 kill", "0.500s partition 0-1 0-2", "heal"}; !slices.Equal(r.Faults, want) {
		t.Errorf("faults %q, want %q", r.Faults, want)
	}
	if r.OverTime == nil || len(r.OverTime.Marks) != 2 {
		t.Errorf("chart %+v, want two marks", r.OverTime)
	}
	if FaultsOf(&history.History{}) != nil {
		t.Error("a history without faults has a Run section")
	}
	// Its section lists them, without an empty summary of a run.
	var b strings.Builder
	if err := (&Page{Title: "h", Run: r}).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, "0.500s partition 0-1 0-2") || strings.Contains(page, "run-summary") {
		t.Errorf("the page's Run section lists no faults or an empty summary")
	}
}
