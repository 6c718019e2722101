package draw

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
)

// checkPNG decodes a PNG and checks it is scale times the size of the
// scene and has a white background with something drawn on it.
func checkPNG(t *testing.T, data []byte, s *scene, scale float64) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	b := img.Bounds()
	tol := 1 + s.Width*0.01
	if math.Abs(float64(b.Dx())-scale*s.Width) > tol || math.Abs(float64(b.Dy())-scale*s.Height) > tol {
		t.Errorf("PNG is %dx%d, want %.0fx%.0f", b.Dx(), b.Dy(), scale*s.Width, scale*s.Height)
	}
	if c := color.NRGBAModel.Convert(img.At(b.Min.X, b.Min.Y)).(color.NRGBA); c != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("corner is %v, want white", c)
	}
	if dark := darkPixels(img); dark < 100 {
		t.Errorf("only %d dark pixels: nothing drawn?", dark)
	}
}

func darkPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r+g+bl < 3*0x8000 {
				n++
			}
		}
	}
	return n
}

func TestGraphPNG(t *testing.T) {
	for _, c := range graphCases[:2] {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.g.WritePNG(&b); err != nil {
				t.Fatal(err)
			}
			checkPNG(t, b.Bytes(), layoutGraph(newFonts(), &c.g).scene, 2)
		})
	}
}

func TestTimelinePNG(t *testing.T) {
	var b bytes.Buffer
	if err := timelineCase.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b.Bytes(), layoutTimeline(newFonts(), &timelineCase), 2)
}

func TestLargePNGIsScaledDown(t *testing.T) {
	g := &Graph{Title: "one long session"}
	g.Lanes = []Lane{{Name: "s"}}
	for i := range MaxNodes {
		g.Lanes[0].Nodes = append(g.Lanes[0].Nodes, Node{ID: fmt.Sprint(i), Title: fmt.Sprintf("T%d", i), Order: int64(i), Lines: []Line{Plain(strings.Repeat("w", 70))}})
	}
	s := layoutGraph(newFonts(), g).scene
	scale := scaleFor(s)
	if scale >= 2 || s.Width*scale > pngMaxSide+1 {
		t.Fatalf("a %.0f-wide picture is drawn at scale %.2f", s.Width, scale)
	}
	var b bytes.Buffer
	if err := g.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b.Bytes(), s, math.Round(72*scale)/72)
}
