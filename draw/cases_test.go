package draw

// The graphs the golden files and the pictures are made of: small
// counterexamples of the kinds isocheck reports.
var graphCases = []struct {
	name string
	g    Graph
}{
	{"write-skew", Graph{
		Title:   "SI violated: WriteSkew (G2-item)",
		Caption: []string{"T1 and T2 each read what the other wrote over, and both committed: no serial order has both read the old values."},
		Lanes: []Lane{
			{Name: "session 1", Nodes: []Node{{ID: "T1", Title: "T1", Sub: "#1 · write-skew.jsonl:1", Order: 1, Lines: []Line{
				{{Text: "r x = "}, {Text: "0", Mark: true}}, Plain("r y = 0"), {{Text: "w "}, {Text: "y", Mark: true}, {Text: " = 1"}}}}}},
			{Name: "session 2", Nodes: []Node{{ID: "T2", Title: "T2", Sub: "#2 · write-skew.jsonl:2", Order: 1, Lines: []Line{
				Plain("r x = 0"), {{Text: "r y = "}, {Text: "0", Mark: true}}, {{Text: "w "}, {Text: "x", Mark: true}, {Text: " = 1"}}}}}},
		},
		Edges: []Edge{
			{From: "T1", To: "T2", Kind: RW, Label: "RW x", Why: "T1 read x = 0 and T2 wrote x = 1 over it", FromLine: 1, ToLine: 3},
			{From: "T2", To: "T1", Kind: RW, Label: "RW y", Why: "T2 read y = 0 and T1 wrote y = 1 over it", FromLine: 2, ToLine: 3},
		},
	}},
	{"lost-update", Graph{
		Title:   "SI violated: LostUpdate (P4)",
		Caption: []string{"T1 and T2 both read x = 0 and both wrote it: one increment is lost."},
		Lanes: []Lane{
			{Name: "s1", Nodes: []Node{{ID: "T1", Title: "T1", Order: 1, Lines: []Line{Plain("r x = 0"), {{Text: "w x = "}, {Text: "1", Mark: true}}}}}},
			{Name: "s2", Nodes: []Node{{ID: "T2", Title: "T2", Order: 2, Lines: []Line{Plain("r x = 0"), {{Text: "w x = "}, {Text: "2", Mark: true}}}}}},
		},
		Edges: []Edge{
			{From: "T1", To: "T2", Kind: RW, Label: "RW x", Why: "T1 read x = 0, which T2 overwrote", FromLine: 1, ToLine: 2},
			{From: "T2", To: "T1", Kind: RW, Label: "RW x", Why: "T2 read x = 0, which T1 overwrote", FromLine: 1, ToLine: 2},
			{From: "T1", To: "T2", Kind: WW, Label: "WW x", Why: "T2 wrote x after T1", FromLine: 2, ToLine: 2},
		},
	}},
	{"long-fork", Graph{
		Title:   "PC violated: LongFork (G-single)",
		Caption: []string{"Readers T3 and T4 saw the writes of T1 and T2 in opposite orders."},
		Lanes: []Lane{
			{Name: "writer 1", Nodes: []Node{
				{ID: "T0", Title: "T0", Order: 0, Lines: []Line{Plain("w x = 0"), Plain("w y = 0")}},
				{ID: "T1", Title: "T1", Order: 1, Lines: []Line{Plain("w x = 1")}},
			}},
			{Name: "writer 2", Nodes: []Node{{ID: "T2", Title: "T2", Order: 1, Lines: []Line{Plain("w y = 1")}}}},
			{Name: "reader 1", Nodes: []Node{{ID: "T3", Title: "T3", Order: 2, Lines: []Line{{{Text: "r x = "}, {Text: "1", Mark: true}}, {{Text: "r y = "}, {Text: "0", Mark: true}}}}}},
			{Name: "reader 2", Nodes: []Node{{ID: "T4", Title: "T4", Order: 2, Lines: []Line{{{Text: "r x = "}, {Text: "0", Mark: true}}, {{Text: "r y = "}, {Text: "1", Mark: true}}}}}},
		},
		Edges: []Edge{
			{From: "T0", To: "T1", Kind: SO, Label: "SO", Why: "T0 came before T1 in writer 1"},
			{From: "T1", To: "T3", Kind: WR, Label: "WR x", Why: "T3 read x = 1 from T1", FromLine: 1, ToLine: 1},
			{From: "T2", To: "T4", Kind: WR, Label: "WR y", Why: "T4 read y = 1 from T2", FromLine: 1, ToLine: 2},
			{From: "T3", To: "T2", Kind: RW, Label: "RW y", Why: "T3 read y = 0, which T2 overwrote", FromLine: 2, ToLine: 1},
			{From: "T4", To: "T1", Kind: RW, Label: "RW x", Why: "T4 read x = 0, which T1 overwrote", FromLine: 1, ToLine: 1},
			{From: "T0", To: "T3", Kind: WR, Label: "WR y", Why: "T3 read y = 0 from T0", FromLine: 2, ToLine: 2},
		},
	}},
	{"aborted-read", Graph{
		Title:   "RC violated: AbortedRead (G1a)",
		Caption: []string{"T2 read a value that only the aborted T1 wrote."},
		Lanes: []Lane{
			{Name: "s1", Nodes: []Node{{ID: "T1", Title: "T1", Status: "aborted", Order: 1, Lines: []Line{{{Text: "w x = "}, {Text: "7", Mark: true}}}}}},
			{Name: "s2", Nodes: []Node{{ID: "T2", Title: "T2", Order: 2, Lines: []Line{{{Text: "r x = "}, {Text: "7", Mark: true}}}}}},
		},
		Edges: []Edge{{From: "T1", To: "T2", Kind: WR, Label: "WR x", Why: "T2 read x = 7, written only by T1, which aborted"}},
	}},
	{"dashed-notes", Graph{
		Title:   "SER violated: G2 (anti-dependency cycle)",
		Caption: []string{"A cycle of dependencies, two of which hold only if the writes of x were installed in the order assumed below."},
		Lanes: []Lane{
			{Name: "session 1", Nodes: []Node{
				{ID: "T1", Title: "T1", Order: 1, Lines: []Line{Plain("w x = 1")}},
				{ID: "T3", Title: "T3", Order: 3, Lines: []Line{Plain("r y = 2")}},
				{ID: "T5", Title: "T5", Order: 5, Lines: []Line{Plain("w z = 1")}},
			}},
			{Name: "session 2", Nodes: []Node{
				{ID: "T2", Title: "T2", Order: 2, Lines: []Line{Plain("w x = 2"), Plain("w y = 2")}},
				{ID: "T4", Title: "T4", Order: 4, Status: "unknown", Lines: []Line{Plain("r z = 0")}},
			}},
		},
		Edges: []Edge{
			{From: "T1", To: "T2", Kind: WW, Label: "WW x", Dashed: true, Why: "if x = 1 was installed before x = 2"},
			{From: "T2", To: "T3", Kind: WR, Label: "WR y", Why: "T3 read y = 2 from T2"},
			{From: "T1", To: "T5", Kind: SO, Label: "SO", Why: "T1 came before T5 in session 1"},
			{From: "T4", To: "T5", Kind: RW, Label: "RW z", Dashed: true, Why: "T4 read z = 0, which T5 overwrote"},
			{From: "T3", To: "T1", Kind: RT, Label: "RT", Why: "drawn backward to test routing"},
			{From: "T4", To: "T2", Kind: SO, Label: "SO", Why: "T2 came before T4 in session 2"},
		},
		Notes: []string{"Assumed: x = 1 was installed before x = 2.", "The order of the writes of z is not known."},
	}},
}

func ptr(v int64) *int64 { return &v }

// timelineCase is a compare-and-set register history that is not
// linearizable.
var timelineCase = Timeline{
	Title:   "Linearizability violated: register r1",
	Caption: []string{"P2 read 2 after P1's cas(1→2) had failed and no one else wrote 2."},
	Lanes: []TimelineLane{
		{Name: "P1", Ops: []Interval{
			{Start: 0, End: 40, Label: "write 1", Why: "P1 wrote 1", Point: ptr(20)},
			{Start: 50, End: 120, Label: "cas(1→2) fail", Why: "P1's cas failed", Mark: true},
		}},
		{Name: "P2", Ops: []Interval{
			{Start: 10, End: 30, Label: "read 0", Why: "P2 read 0", Point: ptr(12)},
			{Start: 60, End: 90, Label: "read 2", Why: "nothing wrote 2 before this read returned", Mark: true},
			{Start: 70, End: 80, Label: "read 1", Why: "overlaps: drawn on a second row"},
		}},
		{Name: "P3", Ops: []Interval{
			{Start: 55, Label: "write 3", Why: "P3's write never returned", Open: true},
		}},
	},
	Notes: []string{"Times are in milliseconds since the run began."},
	// Two faults during the operations, and one after them, left out.
	Marks: []TimelineMark{{At: 45, Label: "partition 0-1 0-2"}, {At: 100, Label: "heal"}, {At: 500, Label: "kill"}},
}

// chartCase is a throughput over time with two faults.
var chartCase = Chart{
	Title:  "Throughput",
	XLabel: "seconds",
	YLabel: "txn/s",
	Series: []Series{
		{Name: "committed", Points: []Point{{0, 120}, {1, 130}, {2, 128}, {3, 40}, {4, 35}, {5, 110}, {6, 125}}},
		{Name: "aborted", Points: []Point{{0, 5}, {1, 6}, {2, 8}, {3, 60}, {4, 55}, {5, 9}, {6, 7}}},
	},
	Marks: []Mark{{X: 2.5, Label: "partition"}, {X: 4.6, Label: "heal"}},
}
