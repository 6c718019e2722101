package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// The most bytes of SVG one picture, and all the pictures of a page
// together, may take; a picture past either is left out with a note.
const (
	maxFigure      = 1536 << 10
	maxFigureTotal = 3 << 20
)

// figure is one picture on the page: the inline SVG draw wrote, or why
// there is none.
type figure struct {
	SVG         template.HTML
	Unavailable string
}

// figures draws pictures, keeping count of the bytes of SVG the page
// holds so far.
type figures struct {
	left int
}

func newFigures() *figures { return &figures{left: maxFigureTotal} }

// errTooLarge stops a writer whose picture is over the limit.
var errTooLarge = errors.New("too large")

// draw runs write, one of draw's SVG writers, and returns its output as a
// figure to insert as it is: package draw escapes the text it writes.
// The output must also be one <svg> element without script, so that a bug
// there cannot put anything else on the page. A failed, foreign or
// oversized picture gives a short note in its place.
func (f *figures) draw(c *cleaner, write func(io.Writer) error) figure {
	limit := min(maxFigure, max(f.left, 0))
	var buf bytes.Buffer
	err := write(&limitWriter{w: &buf, left: limit})
	switch {
	case errors.Is(err, errTooLarge):
		return figure{Unavailable: fmt.Sprintf("picture left out: over the page's limit of %d KiB of pictures", limit>>10)}
	case err != nil:
		return figure{Unavailable: "picture unavailable: " + c.prose(err.Error())}
	}
	svg, ok := inlineSVG(buf.String())
	if !ok {
		return figure{Unavailable: "picture unavailable: the writer did not give one <svg> element"}
	}
	f.left -= len(svg)
	return figure{SVG: template.HTML(svg)}
}

// inlineSVG returns svg without the XML declaration, doctype or comments
// before its <svg> element, and whether what is left is one <svg>
// element with no script in it.
func inlineSVG(svg string) (string, bool) {
	start := strings.Index(svg, "<svg")
	if start < 0 {
		return "", false
	}
	for rest := strings.TrimSpace(svg[:start]); rest != ""; rest = strings.TrimSpace(rest) {
		end := strings.IndexByte(rest, '>')
		if end < 0 || !(strings.HasPrefix(rest, "<?") || strings.HasPrefix(rest, "<!")) {
			return "", false
		}
		rest = rest[end+1:]
	}
	svg = strings.TrimSpace(svg[start:])
	lower := strings.ToLower(svg)
	if !strings.HasSuffix(lower, "</svg>") || strings.Contains(lower, "<script") || strings.Contains(lower, "<foreignobject") {
		return "", false
	}
	return svg, true
}

// limitWriter passes on at most left bytes, then fails with errTooLarge.
type limitWriter struct {
	w    io.Writer
	left int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if len(p) > l.left {
		return 0, errTooLarge
	}
	l.left -= len(p)
	return l.w.Write(p)
}
