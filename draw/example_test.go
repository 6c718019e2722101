package draw_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/isocheck/isocheck/draw"
)

// A write skew: two sessions, each transaction overwrote what the other
// read.
func ExampleGraph_WriteSVG() {
	g := draw.Graph{
		Title: "SI violated: WriteSkew (G2-item)",
		Lanes: []draw.Lane{
			{Name: "session 1", Nodes: []draw.Node{{ID: "T1", Title: "T1", Order: 1,
				Lines: []draw.Line{draw.Plain("r x = 0"), {{Text: "w "}, {Text: "y", Mark: true}, {Text: " = 1"}}}}}},
			{Name: "session 2", Nodes: []draw.Node{{ID: "T2", Title: "T2", Order: 1,
				Lines: []draw.Line{draw.Plain("r y = 0"), {{Text: "w "}, {Text: "x", Mark: true}, {Text: " = 1"}}}}}},
		},
		Edges: []draw.Edge{
			{From: "T1", To: "T2", Kind: draw.RW, Label: "RW x", Why: "T2 overwrote the x that T1 read"},
			{From: "T2", To: "T1", Kind: draw.RW, Label: "RW y", Why: "T1 overwrote the y that T2 read"},
		},
	}
	var svg strings.Builder
	if err := g.WriteSVG(&svg); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<svg "))
	fmt.Println(strings.Count(svg.String(), `class="node"`), "nodes,", strings.Count(svg.String(), `class="edge"`), "edges")
	// Output:
	// true
	// 2 nodes, 2 edges
}
