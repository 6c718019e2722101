package main

import (
	"errors"
	"testing"
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/nemesis"
)

// TestFaultInForce: the timeline of a violation that happened between
// two events of the nemesis says which fault was still in force.
func TestFaultInForce(t *testing.T) {
	tl := &draw.Timeline{Lanes: []draw.TimelineLane{{Ops: []draw.Interval{{Start: 5_216_000_000, End: 5_223_000_000}}}}}
	partition := nemesis.Event{At: 4376 * time.Millisecond, Node: -1, Action: nemesis.ActionPartition, Cuts: [][2]int{{0, 2}, {1, 2}}}
	heal := nemesis.Event{At: 6233 * time.Millisecond, Node: -1, Action: nemesis.ActionHeal}
	kill := nemesis.Event{At: 1 * time.Second, Node: 1, Action: nemesis.ActionKill}
	restart := nemesis.Event{At: 2 * time.Second, Node: 1, Action: nemesis.ActionRestart}
	failed := nemesis.Event{At: 5 * time.Second, Node: 2, Action: nemesis.ActionKill, Err: errTest}
	for _, tt := range []struct {
		name   string
		events []nemesis.Event
		want   string
	}{
		{"partitioned", []nemesis.Event{partition, heal}, "In force during these operations: partition 0-2 1-2, from 4.376 s until it was healed at 6.233 s."},
		{"never healed", []nemesis.Event{partition}, "In force during these operations: partition 0-2 1-2, from 4.376 s."},
		{"healed before", []nemesis.Event{kill, restart}, ""},
		{"a fault that failed", []nemesis.Event{kill, restart, failed}, ""},
		{"after the operations", []nemesis.Event{heal}, ""},
		{"none", nil, ""},
	} {
		if got := faultInForce(tl, tt.events); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

var errTest = errors.New("no such node")
