package draw

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was drawn (run go test -update and read the diff)", path)
	}
}

// svgCounts parses an SVG and counts its elements by class; it fails the
// test if the SVG is not well-formed XML with one <svg> root, or refers
// to anything outside itself.
func svgCounts(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	for _, bad := range []string{"<?xml", "<script", "<image", "<style", "<foreignObject", "<use"} {
		if bytes.Contains(svg, []byte(bad)) {
			t.Errorf("SVG contains %q", bad)
		}
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	counts := map[string]int{}
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root is %v, want svg in the SVG namespace", tok.Name)
				}
			}
			depth++
			for _, a := range tok.Attr {
				switch {
				case a.Name.Local == "class":
					counts[a.Value]++
				case a.Name.Local == "href" || a.Name.Local == "id" || a.Name.Local == "src" || a.Name.Local == "style" ||
					strings.HasPrefix(a.Name.Local, "on") || strings.Contains(a.Value, "url("):
					t.Errorf("<%s> has attribute %s=%q", tok.Name.Local, a.Name.Local, a.Value)
				}
			}
			counts["<"+tok.Name.Local+">"]++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		t.Errorf("%d root elements, want 1", roots)
	}
	return counts
}

func TestGraphSVG(t *testing.T) {
	for _, c := range graphCases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.g.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			counts := svgCounts(t, b.Bytes())
			nodes := 0
			for _, l := range c.g.Lanes {
				nodes += len(l.Nodes)
			}
			if counts["node"] != nodes {
				t.Errorf("%d nodes drawn, want %d", counts["node"], nodes)
			}
			if counts["edge"] != len(c.g.Edges) || counts["edge-label"] != len(c.g.Edges) {
				t.Errorf("%d edges and %d labels drawn, want %d", counts["edge"], counts["edge-label"], len(c.g.Edges))
			}
			if counts["title"] != 1 {
				t.Errorf("%d titles, want 1", counts["title"])
			}
			s := b.String()
			for _, e := range c.g.Edges {
				if !strings.Contains(s, "<title>"+e.Why+"</title>") {
					t.Errorf("tooltip %q missing", e.Why)
				}
			}
			if !strings.Contains(s, `role="img" aria-label="`+c.g.Title+`"`) {
				t.Errorf("svg not labelled %q", c.g.Title)
			}
			golden(t, c.name+".svg", b.Bytes())
		})
	}
}

func TestLegendListsKindsUsed(t *testing.T) {
	tests := []struct {
		name      string
		edges     []Edge
		want, not []string
	}{
		{"rw only", []Edge{{From: "a", To: "b", Kind: RW}}, []string{"RW: B overwrote the version A read"}, []string{"WR:", "WW:", "SO:", "RT:", "dashed:"}},
		{"dashed", []Edge{{From: "a", To: "b", Kind: WW, Dashed: true}}, []string{"WW: B overwrote A's write", "dashed: holds only"}, []string{"RW:"}},
		{"other kind", []Edge{{From: "a", To: "b", Kind: "PR"}, {From: "b", To: "a", Kind: RT}}, []string{"PR:", "RT: A ended before B started"}, []string{"WR:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Graph{Lanes: []Lane{{Name: "s", Nodes: []Node{{ID: "a", Title: "A"}, {ID: "b", Title: "B", Order: 1}}}}, Edges: tt.edges}
			var b bytes.Buffer
			if err := g.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			s := strings.ReplaceAll(b.String(), "&#39;", "'")
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("legend lacks %q", w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(s, ">"+n) {
					t.Errorf("legend lists %q, which no edge is", n)
				}
			}
		})
	}
}

func TestTimelineSVG(t *testing.T) {
	var b bytes.Buffer
	if err := timelineCase.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	counts := svgCounts(t, b.Bytes())
	if counts["op"] != 6 || counts["mark"] != 2 {
		t.Errorf("%d ops and %d marks drawn, want 6 and 2", counts["op"], counts["mark"])
	}
	golden(t, "timeline.svg", b.Bytes())
}

func TestChartSVG(t *testing.T) {
	var b bytes.Buffer
	if err := chartCase.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	counts := svgCounts(t, b.Bytes())
	if counts["series"] != 2 || counts["mark"] != 2 {
		t.Errorf("%d series and %d marks drawn, want 2 and 2", counts["series"], counts["mark"])
	}
	golden(t, "chart.svg", b.Bytes())
}
