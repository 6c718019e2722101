package draw

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
)

// checkPNG decodes a PNG and checks it is twice the size of the scene
// and has a white background with something drawn on it.
func checkPNG(t *testing.T, data []byte, s *scene) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	b := img.Bounds()
	if math.Abs(float64(b.Dx())-pngScale*s.Width) > 1 || math.Abs(float64(b.Dy())-pngScale*s.Height) > 1 {
		t.Errorf("PNG is %dx%d, want %.0fx%.0f", b.Dx(), b.Dy(), pngScale*s.Width, pngScale*s.Height)
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
			checkPNG(t, b.Bytes(), layoutGraph(newFonts(), &c.g).scene)
		})
	}
}

func TestTimelinePNG(t *testing.T) {
	var b bytes.Buffer
	if err := timelineCase.WritePNG(&b); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b.Bytes(), layoutTimeline(newFonts(), &timelineCase))
}
