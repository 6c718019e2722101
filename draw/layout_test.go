package draw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/testsize"
)

// randomGraph is a graph of 2 to 12 nodes on 1 to 5 lanes with random
// edges, parallel and opposite ones among them, and labels and lines of
// random lengths.
func randomGraph(rng *rand.Rand) *Graph {
	g := &Graph{Title: "random"}
	lanes := 1 + rng.IntN(5)
	nodes := 2 + rng.IntN(11)
	g.Lanes = make([]Lane, lanes)
	for i := range g.Lanes {
		g.Lanes[i].Name = strings.Repeat("s", 1+rng.IntN(12))
	}
	var ids []string
	for i := 0; i < nodes; i++ {
		id := fmt.Sprintf("T%d", i)
		ids = append(ids, id)
		n := Node{ID: id, Title: id, Order: int64(rng.IntN(8))}
		if rng.IntN(2) == 0 {
			n.Sub = strings.Repeat("x", rng.IntN(30))
		}
		for j := rng.IntN(5); j > 0; j-- {
			n.Lines = append(n.Lines, Line{{Text: "w k" + strings.Repeat("0", rng.IntN(10))}, {Text: "=1", Mark: rng.IntN(2) == 0}})
		}
		if rng.IntN(6) == 0 {
			n.Status = "aborted"
		}
		l := rng.IntN(lanes)
		g.Lanes[l].Nodes = append(g.Lanes[l].Nodes, n)
	}
	kinds := []string{SO, WR, WW, RW, RT, "X"}
	for i := rng.IntN(3 * nodes); i >= 0; i-- {
		e := Edge{From: ids[rng.IntN(nodes)], To: ids[rng.IntN(nodes)], Kind: kinds[rng.IntN(len(kinds))], Dashed: rng.IntN(4) == 0}
		e.Label = e.Kind + " " + strings.Repeat("k", rng.IntN(25))
		if rng.IntN(3) > 0 {
			e.FromLine, e.ToLine = rng.IntN(6), rng.IntN(6)
		}
		g.Edges = append(g.Edges, e)
		switch rng.IntN(4) {
		case 0: // the same again
			g.Edges = append(g.Edges, e)
		case 1: // the opposite
			e.From, e.To = e.To, e.From
			g.Edges = append(g.Edges, e)
		}
	}
	return g
}

// checkPlaced fails if two boxes or labels of d overlap, or one lies
// outside the picture.
func checkPlaced(t *testing.T, d *drawnGraph) {
	t.Helper()
	picture := rect{0, 0, d.scene.Width, d.scene.Height}
	all := append(append([]rect(nil), d.nodes...), d.labels...)
	name := func(i int) string {
		if i < len(d.nodes) {
			return fmt.Sprintf("node %d", i)
		}
		return fmt.Sprintf("label %d", i-len(d.nodes))
	}
	for i, a := range all {
		if !a.within(picture) {
			t.Errorf("%s %+v lies outside the picture %+v", name(i), a, picture)
		}
		for j := i + 1; j < len(all); j++ {
			if a.overlaps(all[j]) {
				t.Errorf("%s %+v overlaps %s %+v", name(i), a, name(j), all[j])
			}
		}
	}
}

// checkOnArrows fails if a label of d lies more than 2 units from its
// own arrow.
func checkOnArrows(t *testing.T, d *drawnGraph) {
	t.Helper()
	for i, lr := range d.labels {
		if !lr.inflate(2).meets(d.paths[i]) {
			t.Errorf("label %d %+v lies off its arrow", i, lr)
		}
	}
}

// checkRows fails if an arrow of d that names the lines it concerns
// does not start on its source's side beside its line, or end on its
// target's side beside its line: on the box's edge, within the row.
func checkRows(t *testing.T, l *graphLayout) {
	t.Helper()
	for i, r := range l.routes {
		ps := r.polyline()
		start, end := ps[0], ps[len(ps)-1]
		check := func(what string, p pt, b *box, line int) {
			if line == 0 {
				return
			}
			onSide := math.Abs(p.X-b.r.X) < 0.5 || math.Abs(p.X-(b.r.X+b.r.W)) < 0.5
			row := b.r.Y + b.rowY(line)
			if !onSide || math.Abs(p.Y-row) > rowHalf {
				t.Errorf("arrow %d (%s→%s) %s at %+v, not on the side of box %s %+v beside its line %d (at %.1f)", i, r.e.From, r.e.To, what, p, b.id, b.r, line, row)
			}
		}
		check("starts", start, r.from, r.fromLine)
		check("ends", end, r.to, r.toLine)
	}
}

func TestRandomGraphsDoNotOverlap(t *testing.T) {
	n := testsize.N(800, 3000)
	if testing.Short() {
		n = 300
	}
	f := newFonts()
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 24))
		g := randomGraph(rng)
		d := layoutGraph(f, g)
		checkPlaced(t, d)
		checkOnArrows(t, d)
		checkRows(t, d.layout)
		edges := 0
		for _, e := range g.Edges {
			if e.From != "" {
				edges++
			}
		}
		if len(d.labels) != edges {
			t.Errorf("seed %d: %d labels for %d edges", seed, len(d.labels), edges)
		}
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}

func TestLargeGraphIsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := &Graph{Title: "the largest graph drawn", Lanes: make([]Lane, 10)}
	for i := range MaxNodes {
		l := &g.Lanes[i%10]
		l.Name = fmt.Sprintf("session %d", i%10)
		l.Nodes = append(l.Nodes, Node{ID: fmt.Sprint(i), Title: fmt.Sprintf("T%d", i), Order: int64(i), Lines: []Line{Plain("r x 1"), Plain("w y 2")}})
	}
	for range MaxEdges {
		g.Edges = append(g.Edges, Edge{From: fmt.Sprint(rng.IntN(MaxNodes)), To: fmt.Sprint(rng.IntN(MaxNodes)), Kind: RW, Label: "RW x"})
	}
	d := layoutGraph(newFonts(), g)
	checkPlaced(t, d)
	var b strings.Builder
	if err := g.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 2<<20 {
		t.Errorf("SVG of %d nodes is %d bytes, want under 2 MiB", MaxNodes, b.Len())
	}
}

func TestAssignColumns(t *testing.T) {
	tests := []struct {
		name  string
		lanes [][]int64 // orders of each lane's nodes
		want  [][]int
	}{
		{"ties on two lanes share a column", [][]int64{{1, 2}, {1, 3}}, [][]int{{0, 1}, {0, 2}}},
		{"ties on one lane take two", [][]int64{{1, 1}, {2}}, [][]int{{0, 1}, {2}}},
		{"lane order wins over Order", [][]int64{{5, 1}}, [][]int{{1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all []*box
			perLane := make([][]*box, len(tt.lanes))
			for l, orders := range tt.lanes {
				for _, o := range orders {
					b := &box{lane: l, order: o}
					all = append(all, b)
					perLane[l] = append(perLane[l], b)
				}
			}
			assignColumns(all, perLane)
			for l, bs := range perLane {
				for i, b := range bs {
					if b.col != tt.want[l][i] {
						t.Errorf("lane %d node %d in column %d, want %d", l, i, b.col, tt.want[l][i])
					}
				}
			}
		})
	}
}

func TestDegenerateGraphs(t *testing.T) {
	two := []Lane{{Name: "s", Nodes: []Node{{ID: "a", Title: "A"}, {ID: "b", Title: "B", Order: 1}}}}
	tests := []struct {
		name   string
		g      Graph
		labels int
	}{
		{"empty", Graph{}, 0},
		{"lanes without nodes", Graph{Title: "t", Lanes: []Lane{{Name: "s1"}, {Name: "s2"}}}, 0},
		{"edge to an unknown node", Graph{Lanes: two, Edges: []Edge{{From: "a", To: "zz", Kind: WR}, {From: "a", To: "b", Kind: WR}}}, 1},
		{"self loop", Graph{Lanes: two, Edges: []Edge{{From: "a", To: "a", Kind: WW, Label: "WW x"}, {From: "a", To: "a", Kind: RW}}}, 2},
		{"duplicate ids", Graph{Lanes: []Lane{{Nodes: []Node{{ID: "a"}, {ID: "a"}}}}, Edges: []Edge{{From: "a", To: "a"}}}, 1},
		{"no label, no kind", Graph{Lanes: two, Edges: []Edge{{From: "b", To: "a"}}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := layoutGraph(newFonts(), &tt.g)
			checkPlaced(t, d)
			checkOnArrows(t, d)
			if len(d.labels) != tt.labels {
				t.Errorf("%d labels, want %d", len(d.labels), tt.labels)
			}
			var b strings.Builder
			if err := tt.g.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			svgCounts(t, []byte(b.String()))
		})
	}
}

func TestDegenerateTimelinesAndCharts(t *testing.T) {
	p := int64(5)
	timelines := []Timeline{
		{},
		{Lanes: []TimelineLane{{Name: "p"}}},
		{Lanes: []TimelineLane{{Name: "p", Ops: []Interval{{Start: 10, End: 3, Label: "backward"}, {Start: 4, Open: true, Point: &p}}}}},
		{Lanes: []TimelineLane{{Name: "p", Ops: []Interval{{Start: -1 << 63, End: 1<<63 - 1}}}}},
		{Lanes: []TimelineLane{{Name: "p", Ops: []Interval{{Start: 1 << 60, End: 1 << 60}, {Start: 1<<60 + 1, End: 1<<60 + 1}}}}},
	}
	for i, tl := range timelines {
		var b strings.Builder
		if err := tl.WriteSVG(&b); err != nil {
			t.Fatalf("timeline %d: %v", i, err)
		}
		if b.Len() > 64<<10 {
			t.Errorf("timeline %d: SVG of %d bytes", i, b.Len())
		}
		svgCounts(t, []byte(b.String()))
	}
	nan := math.NaN()
	charts := []Chart{
		{},
		{Series: []Series{{Name: "one point", Points: []Point{{1, 1}}}}},
		{Series: []Series{{Name: "nan", Points: []Point{{nan, 1}, {1, math.Inf(1)}, {2, 3}}}}, Marks: []Mark{{X: nan}, {X: 2, Label: "m"}}},
	}
	for i, c := range charts {
		var b strings.Builder
		if err := c.WriteSVG(&b); err != nil {
			t.Fatalf("chart %d: %v", i, err)
		}
		if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
			t.Errorf("chart %d: SVG has a NaN or Inf", i)
		}
		svgCounts(t, []byte(b.String()))
	}
}

// TestTooLargeToDraw: a graph over MaxNodes is drawn as its heading and a
// note, at once, not laid out.
func TestTooLargeToDraw(t *testing.T) {
	g := &Graph{Title: "huge"}
	var nodes []Node
	for i := range MaxNodes + 1 {
		nodes = append(nodes, Node{ID: fmt.Sprint(i), Title: fmt.Sprint(i), Order: int64(i)})
	}
	g.Lanes = []Lane{{Name: "s", Nodes: nodes}}
	var b strings.Builder
	if err := g.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "too many to draw") || strings.Contains(b.String(), `class="node"`) {
		t.Errorf("a graph of %d nodes is drawn:\n%.300s", MaxNodes+1, b.String())
	}
}
