package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
)

// writeSVG writes s as one standalone <svg> element: no prolog, no ids, no
// reference to anything outside it, so that many of them can sit inline
// in one HTML page.
func writeSVG(w io.Writer, s *scene) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="`,
		num(s.Width), num(s.Height), num(s.Width), num(s.Height))
	escape(&b, s.Label)
	fmt.Fprintf(&b, `" font-family="%s">`+"\n", sansFamily)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%s" height="%s" fill="#ffffff"/>`+"\n", num(s.Width), num(s.Height))
	writeItems(&b, s.Items)
	b.WriteString("</svg>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("draw: writing SVG: %w", err)
	}
	return nil
}

func writeItems(b *bytes.Buffer, items []item) {
	for _, it := range items {
		switch {
		case it.Rect != nil:
			r := it.Rect
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s"`, num(r.X), num(r.Y), num(r.W), num(r.H))
			if r.Radius > 0 {
				fmt.Fprintf(b, ` rx="%s"`, num(r.Radius))
			}
			writePaint(b, r.paint)
			b.WriteString("/>\n")
		case it.Path != nil:
			p := it.Path
			b.WriteString(`<path d="`)
			for i, sg := range p.Segs {
				if i > 0 {
					b.WriteByte(' ')
				}
				switch sg.Op {
				case 'C':
					fmt.Fprintf(b, "C%s %s %s %s %s %s", num(sg.C1.X), num(sg.C1.Y), num(sg.C2.X), num(sg.C2.Y), num(sg.P.X), num(sg.P.Y))
				default:
					fmt.Fprintf(b, "%c%s %s", sg.Op, num(sg.P.X), num(sg.P.Y))
				}
			}
			if p.Closed {
				b.WriteString("Z")
			}
			b.WriteByte('"')
			writePaint(b, p.paint)
			b.WriteString("/>\n")
		case it.Text != nil:
			writeText(b, it.Text)
		case it.Group != nil:
			g := it.Group
			b.WriteString("<g")
			if g.Class != "" {
				fmt.Fprintf(b, ` class="%s"`, g.Class)
			}
			for i := 0; i+1 < len(g.Attrs); i += 2 {
				fmt.Fprintf(b, ` %s="`, g.Attrs[i])
				escape(b, g.Attrs[i+1])
				b.WriteByte('"')
			}
			b.WriteString(">")
			if g.Tooltip != "" {
				b.WriteString("<title>")
				escape(b, g.Tooltip)
				b.WriteString("</title>")
			}
			b.WriteByte('\n')
			writeItems(b, g.Items)
			b.WriteString("</g>\n")
		}
	}
}

func writePaint(b *bytes.Buffer, p paint) {
	if p.Fill == "" {
		b.WriteString(` fill="none"`)
	} else {
		fmt.Fprintf(b, ` fill="%s"`, p.Fill)
		if p.FillOpacity > 0 && p.FillOpacity < 1 {
			fmt.Fprintf(b, ` fill-opacity="%s"`, num(p.FillOpacity))
		}
	}
	if p.Stroke != "" && p.StrokeWidth > 0 {
		fmt.Fprintf(b, ` stroke="%s" stroke-width="%s"`, p.Stroke, num(p.StrokeWidth))
		if len(p.Dash) > 0 {
			b.WriteString(` stroke-dasharray="`)
			for i, d := range p.Dash {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(num(d))
			}
			b.WriteByte('"')
		}
	}
}

func writeText(b *bytes.Buffer, t *textShape) {
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="%s"`, num(t.X), num(t.Y), num(t.Size), t.Color)
	if t.Class != "" {
		fmt.Fprintf(b, ` class="%s"`, t.Class)
	}
	if t.Anchor != "" && t.Anchor != "start" {
		fmt.Fprintf(b, ` text-anchor="%s"`, t.Anchor)
	}
	if t.Mono {
		fmt.Fprintf(b, ` font-family="%s"`, monoFamily)
	}
	if len(t.Spans) == 1 && t.Spans[0].Bold {
		b.WriteString(` font-weight="bold"`)
	}
	if len(t.Spans) == 1 {
		writeFit(b, t.Spans[0].Fit)
	}
	if t.Opacity > 0 && t.Opacity < 1 {
		fmt.Fprintf(b, ` opacity="%s"`, num(t.Opacity))
	}
	b.WriteString(` xml:space="preserve">`)
	if len(t.Spans) == 1 {
		escape(b, t.Spans[0].Text)
	} else {
		for _, sp := range t.Spans {
			fmt.Fprintf(b, `<tspan x="%s"`, num(t.X+sp.DX))
			if sp.Bold {
				b.WriteString(` font-weight="bold"`)
			}
			writeFit(b, sp.Fit)
			b.WriteString(">")
			escape(b, sp.Text)
			b.WriteString("</tspan>")
		}
	}
	b.WriteString("</text>\n")
}

// writeFit holds text to the width it was measured at, when it was.
func writeFit(b *bytes.Buffer, w float64) {
	if w > 0 {
		fmt.Fprintf(b, ` textLength="%s" lengthAdjust="spacingAndGlyphs"`, num(w))
	}
}

// escape writes s as XML character data or an attribute value.
func escape(b *bytes.Buffer, s string) {
	// Strings are cleaned before layout; EscapeText also replaces
	// anything XML cannot hold, should one slip through.
	_ = xml.EscapeText(b, []byte(s))
}

// num formats a coordinate with at most one decimal.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}
