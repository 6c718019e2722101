package draw

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// hostileGraph is a graph of 20 nodes with s in every string.
func hostileGraph(s string) *Graph {
	g := &Graph{Title: s, Caption: []string{s, s}, Notes: []string{s}}
	for l := range 4 {
		lane := Lane{Name: s}
		for i := range 5 {
			lane.Nodes = append(lane.Nodes, Node{
				ID: fmt.Sprintf("%s%d.%d", s, l, i), Title: s, Sub: s, Status: s, Order: int64(i),
				Lines: []Line{{{Text: s}, {Text: s, Mark: true}}, Plain(s)},
			})
		}
		g.Lanes = append(g.Lanes, lane)
	}
	for i := range 20 {
		g.Edges = append(g.Edges, Edge{
			From: fmt.Sprintf("%s%d.%d", s, i%4, i%5), To: fmt.Sprintf("%s%d.%d", s, (i+1)%4, (i+2)%5),
			Kind: s, Label: s, Why: s, Dashed: i%2 == 0,
		})
	}
	return g
}

func FuzzGraphSVG(f *testing.F) {
	for _, s := range []string{
		"", "T1", `<script>alert("x")</script>`, `"'&<>`, "]]>", "<![CDATA[x]]>", "--><!--",
		"\x00\x01\x1b[31m\x7f", "\xff\xfe\xc0", "\u2028\u2029\ufeff\ufffe", "line\nbreak\ttab",
		strings.Repeat("A", 64<<10), strings.Repeat("<script>", 8<<10),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		if err := hostileGraph(s).WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 2<<20 {
			t.Errorf("SVG of 20 nodes is %d bytes, want under 2 MiB", b.Len())
		}
		svgCounts(t, b.Bytes())
	})
}

func FuzzTimelineSVG(f *testing.F) {
	f.Add("read 1", int64(0), int64(10))
	f.Add(`<script>"&`, int64(-1<<63), int64(1<<63-1))
	f.Add(strings.Repeat("\x01", 64<<10), int64(5), int64(-5))
	f.Fuzz(func(t *testing.T, s string, start, end int64) {
		tl := &Timeline{Title: s, Caption: []string{s}, Notes: []string{s}}
		for p := range 3 {
			lane := TimelineLane{Name: s}
			for i := range 10 {
				lane.Ops = append(lane.Ops, Interval{Start: start + int64(i), End: end, Label: s, Why: s, Open: i == p, Mark: i%3 == 0, Point: &end})
			}
			tl.Lanes = append(tl.Lanes, lane)
		}
		var b bytes.Buffer
		if err := tl.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 2<<20 {
			t.Errorf("SVG of 30 operations is %d bytes", b.Len())
		}
		svgCounts(t, b.Bytes())
	})
}

func TestHostileGraphPNG(t *testing.T) {
	for _, s := range []string{`<script>"&`, "\x00\x1b\xff\u2028", "漢字 emoji 🙂 rtl שלום"} {
		var b bytes.Buffer
		if err := hostileGraph(s).WritePNG(&b); err != nil {
			t.Fatalf("%.20q: %v", s, err)
		}
		if b.Len() == 0 {
			t.Errorf("%.20q: empty PNG", s)
		}
	}
}
