package draw

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// Sizes of a PNG: pngScale pixels per unit of the layout, less for a
// picture so large that it would pass pngMaxSide pixels on a side or
// pngMaxPixels in all.
const (
	pngScale     = 2
	pngMaxSide   = 16000
	pngMaxPixels = 40e6
)

// scaleFor is how many pixels one unit of s becomes.
func scaleFor(s *scene) float64 {
	return math.Min(pngScale, math.Min(
		math.Min(pngMaxSide/s.Width, pngMaxSide/s.Height),
		math.Sqrt(pngMaxPixels/(s.Width*s.Height))))
}

// writePNG rasterises s at scaleFor(s) with a white background.
func writePNG(w io.Writer, s *scene, f *fonts) error {
	c := vgimg.NewWith(
		vgimg.UseWH(vg.Length(s.Width), vg.Length(s.Height)),
		vgimg.UseDPI(int(math.Round(72*scaleFor(s)))),
		vgimg.UseBackgroundColor(color.White),
	)
	r := rasteriser{c: c, h: s.Height, fonts: f}
	r.items(s.Items)
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("draw: writing PNG: %w", err)
	}
	return nil
}

// rasteriser paints a scene on a canvas whose y axis points up.
type rasteriser struct {
	c     vg.Canvas
	h     float64
	fonts *fonts
}

func (r rasteriser) p(q pt) vg.Point { return vg.Point{X: vg.Length(q.X), Y: vg.Length(r.h - q.Y)} }

func (r rasteriser) items(items []item) {
	for _, it := range items {
		switch {
		case it.Rect != nil:
			r.shape(roundedRect(*it.Rect), it.Rect.paint)
		case it.Path != nil:
			r.shape(it.Path.Segs, it.Path.paint)
		case it.Text != nil:
			r.text(it.Text)
		case it.Group != nil:
			r.items(it.Group.Items)
		}
	}
}

func (r rasteriser) shape(segs []seg, p paint) {
	var path vg.Path
	for _, s := range segs {
		switch s.Op {
		case 'M':
			path.Move(r.p(s.P))
		case 'L':
			path.Line(r.p(s.P))
		case 'C':
			path.CubeTo(r.p(s.C1), r.p(s.C2), r.p(s.P))
		}
	}
	if p.Fill != "" {
		c := parseColor(p.Fill)
		if p.FillOpacity > 0 && p.FillOpacity < 1 {
			c.A = uint8(255 * p.FillOpacity)
		}
		r.c.SetColor(c)
		r.c.Fill(path)
	}
	if p.Stroke != "" && p.StrokeWidth > 0 {
		r.c.SetColor(parseColor(p.Stroke))
		r.c.SetLineWidth(vg.Length(p.StrokeWidth))
		dash := make([]vg.Length, len(p.Dash))
		for i, d := range p.Dash {
			dash[i] = vg.Length(d)
		}
		r.c.SetLineDash(dash, 0)
		r.c.Stroke(path)
	}
}

// roundedRect is the outline of a rectangle with rounded corners.
func roundedRect(rc rectShape) []seg {
	x, y, w, h, k := rc.X, rc.Y, rc.W, rc.H, min(rc.Radius, rc.W/2, rc.H/2)
	if k <= 0 {
		return []seg{{Op: 'M', P: pt{x, y}}, {Op: 'L', P: pt{x + w, y}}, {Op: 'L', P: pt{x + w, y + h}}, {Op: 'L', P: pt{x, y + h}}, {Op: 'L', P: pt{x, y}}}
	}
	const c = 0.45 // how far a corner's controls sit from its ends
	return []seg{
		{Op: 'M', P: pt{x + k, y}},
		{Op: 'L', P: pt{x + w - k, y}},
		{Op: 'C', C1: pt{x + w - k*c, y}, C2: pt{x + w, y + k*c}, P: pt{x + w, y + k}},
		{Op: 'L', P: pt{x + w, y + h - k}},
		{Op: 'C', C1: pt{x + w, y + h - k*c}, C2: pt{x + w - k*c, y + h}, P: pt{x + w - k, y + h}},
		{Op: 'L', P: pt{x + k, y + h}},
		{Op: 'C', C1: pt{x + k*c, y + h}, C2: pt{x, y + h - k*c}, P: pt{x, y + h - k}},
		{Op: 'L', P: pt{x, y + k}},
		{Op: 'C', C1: pt{x, y + k*c}, C2: pt{x + k*c, y}, P: pt{x + k, y}},
	}
}

func (r rasteriser) text(t *textShape) {
	c := parseColor(t.Color)
	if t.Opacity > 0 && t.Opacity < 1 {
		c.A = uint8(255 * t.Opacity)
	}
	r.c.SetColor(c)
	x := t.X
	if len(t.Spans) == 1 && t.Anchor != "" && t.Anchor != "start" {
		w := r.fonts.width(t.style, t.Spans[0].Text)
		if t.Anchor == "middle" {
			x -= w / 2
		} else {
			x -= w
		}
	}
	for _, sp := range t.Spans {
		st := t.style
		st.Bold = sp.Bold
		r.c.FillString(r.fonts.face(st), r.p(pt{x + sp.DX, t.Y}), sp.Text)
	}
}

// parseColor reads #rrggbb; anything else is black.
func parseColor(s string) color.NRGBA {
	if len(s) != 7 || s[0] != '#' {
		return color.NRGBA{A: 255}
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.NRGBA{A: 255}
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}
