package report

import (
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// The pages the tests write: one of each verdict, the violated one with
// everything a Page holds.

func violatedPage() *Page {
	graph := &draw.Graph{
		Title: "SER violated: WriteSkew (G2-item)",
		Lanes: []draw.Lane{
			{Name: "session 1", Nodes: []draw.Node{{ID: "T1", Title: "T1", Lines: []draw.Line{draw.Plain("r(x)=0")}}}},
			{Name: "session 2", Nodes: []draw.Node{{ID: "T2", Title: "T2", Lines: []draw.Line{draw.Plain("r(y)=0")}}}},
		},
		Edges: []draw.Edge{{From: "T1", To: "T2", Kind: draw.RW, Label: "RW y"}, {From: "T2", To: "T1", Kind: draw.RW, Label: "RW x", Dashed: true}},
	}
	return &Page{
		Title:   "write-skew.jsonl",
		Command: "isocheck check --level SSER,SER,SI --html report.html write-skew.jsonl",
		Levels: []Level{
			{Name: "SSER", Verdict: verdict.Violated, Anomaly: verdict.RealTimeViolation.String()},
			{Name: "SER", Verdict: verdict.Violated, Anomaly: verdict.WriteSkew.String()},
			{Name: "SI", Verdict: verdict.Satisfied},
		},
		Strongest: "SI",
		Anomalies: []Anomaly{
			{
				Level:       "SER",
				Name:        verdict.WriteSkew.String(),
				Class:       verdict.WriteSkew.Class(),
				Description: verdict.WriteSkew.Describe(),
				Summary:     "T1 read x=0 and wrote y=1; T2 read y=0 and wrote x=1: each missed the other's write.",
				Count:       3,
				Minimal:     true,
				Graph:       graph,
				Txns: []Txn{
					{Name: "T1", Session: "s1", Position: 1, Status: "committed", Where: "write-skew.jsonl:1",
						Ops: []draw.Line{{{Text: "r(x)="}, {Text: "0", Mark: true}}, draw.Plain("w(y, 1)")}},
					{Name: "T2", Session: "s2", Position: 1, Status: "committed", Where: "write-skew.jsonl:2",
						Ops: []draw.Line{{{Text: "r(y)="}, {Text: "0", Mark: true}}, draw.Plain("w(x, 1)")}, OmittedOps: 2},
				},
				Edges: []Edge{
					{From: "T1", To: "T2", Kind: draw.RW, Key: "y", Reason: "T1 read y=0, a version before T2's write y=1",
						Because: "y=0 is the initial version, which every write of y follows"},
					{From: "T2", To: "T1", Kind: draw.RW, Key: "x", Reason: "T2 read x=0, a version before T1's write x=1",
						Because: "no read orders the writes of x; the checker chose this order", Assumed: true},
				},
				Detail: "cycle: T1 -RW y-> T2 -RW x-> T1\n\tanti-dependencies: 2",
			},
			{
				Level:       "SSER",
				Name:        verdict.RealTimeViolation.String(),
				Description: verdict.RealTimeViolation.Describe(),
				Count:       100,
				More:        true,
				Timeline:    &draw.Timeline{Lanes: []draw.TimelineLane{{Name: "p1", Ops: []draw.Interval{{Start: 0, End: 5, Label: "w(x, 1)"}}}}},
				Txns: []Txn{
					{Name: "T3", Session: "s1", Position: 2, Status: "committed", Ops: []draw.Line{draw.Plain("w(x, 2)")}},
					{Name: "T4", Session: "s3", Position: 1, Status: "unknown", Ops: []draw.Line{{{Text: "r(x)="}, {Text: "1", Mark: true}}}},
				},
				Edges: []Edge{{From: "T3", To: "T4", Kind: draw.RT, Reason: "T3 ended before T4 started"}},
			},
		},
		Facts: []Fact{{"transactions", "2"}, {"sessions", "2"}, {"keys", "2"}, {"operations", "4"}},
		Run: &Run{
			Database: "postgres 16", Workload: "write-skew",
			Planned: 1000, Committed: 950, Aborted: 40, Unknown: 10,
			Duration: 12*time.Second + 345*time.Millisecond,
			P50:      1234567 * time.Nanosecond, P95: 8 * time.Millisecond, P99: 21 * time.Millisecond, Max: 2 * time.Second,
			AbortReasons: map[string]int{"serialization failure": 31, "deadlock detected": 9},
			Faults:       []string{"3.0s: partition {n1} from {n2, n3}", "6.5s: heal"},
			OverTime:     &draw.Chart{Title: "commits and aborts per second", Series: []draw.Series{{Name: "commits", Points: []draw.Point{{X: 0, Y: 80}, {X: 1, Y: 75}}}}},
		},
		Notes: []string{"3 events were dropped: the log ended mid-line"},
	}
}

func satisfiedPage() *Page {
	return &Page{
		Title:   "bank.edn",
		Command: "isocheck check --level SER bank.edn",
		Levels:  []Level{{Name: "SER", Verdict: verdict.Satisfied}},
		Facts:   []Fact{{"transactions", "120"}, {"sessions", "5"}},
	}
}

func noVerdictPage() *Page {
	return &Page{
		Title:   "big.jsonl",
		Command: "isocheck check --level SER --timeout 10s big.jsonl",
		Levels:  []Level{{Name: "SER", Verdict: verdict.Unknown, Reason: "timed out"}},
		Notes:   []string{"the solver stopped after 10s in stage solve"},
	}
}
