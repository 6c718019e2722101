package draw

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var pngDir = flag.String("png", "", "write the test pictures as PNG files to this folder")

// TestWritePictures writes every case as a PNG to look at, with -png.
func TestWritePictures(t *testing.T) {
	if *pngDir == "" {
		t.Skip("no -png folder")
	}
	cases := graphCases
	for _, seed := range []uint64{3, 11} {
		g := randomGraph(rand.New(rand.NewPCG(seed, 24)))
		cases = append(cases, struct {
			name string
			g    Graph
		}{fmt.Sprintf("random-%d", seed), *g})
	}
	for _, c := range cases {
		f, err := os.Create(filepath.Join(*pngDir, "draw-"+c.name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.g.WritePNG(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	f, err := os.Create(filepath.Join(*pngDir, "draw-timeline.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := timelineCase.WritePNG(f); err != nil {
		t.Fatal(err)
	}
	g, err := os.Create(filepath.Join(*pngDir, "draw-chart.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	fs := newFonts()
	if err := writePNG(g, layoutChart(fs, &chartCase), fs); err != nil {
		t.Fatal(err)
	}
}
