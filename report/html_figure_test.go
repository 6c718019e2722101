package report

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFigure(t *testing.T) {
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>T1</text></svg>`
	writing := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	for _, tc := range []struct {
		name        string
		write       func(io.Writer) error
		svg, note   string
		figuresLeft int
	}{
		{"inline", writing(svg), svg, "", maxFigureTotal - len(svg)},
		{"declaration dropped", writing(`<?xml version="1.0"?>` + "\n<!-- drawn -->\n" + svg + "\n"), svg, "", maxFigureTotal - len(svg)},
		{"failed", func(io.Writer) error { return errors.New("draw: no lanes\x1b") }, "", `picture unavailable: draw: no lanes\x1b`, maxFigureTotal},
		{"not svg", writing("<p>hello</p>"), "", "picture unavailable: the writer did not give one <svg> element", maxFigureTotal},
		{"text before", writing("hello" + svg), "", "picture unavailable: the writer did not give one <svg> element", maxFigureTotal},
		{"script", writing(`<svg><script>alert(1)</script></svg>`), "", "picture unavailable: the writer did not give one <svg> element", maxFigureTotal},
		{"too large", writing("<svg>" + strings.Repeat(" ", maxFigure) + "</svg>"), "", "picture left out: over the page's limit of 1536 KiB of pictures", maxFigureTotal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFigures()
			got := f.draw(newCleaner(), tc.write)
			if string(got.SVG) != tc.svg || got.Unavailable != tc.note {
				t.Errorf("draw = {SVG: %q, Unavailable: %q}, want {%q, %q}", got.SVG, got.Unavailable, tc.svg, tc.note)
			}
			if f.left != tc.figuresLeft {
				t.Errorf("%d bytes of pictures left, want %d", f.left, tc.figuresLeft)
			}
		})
	}
}

// TestFiguresTotal checks that the pictures of a page stop at their total
// limit.
func TestFiguresTotal(t *testing.T) {
	big := "<svg>" + strings.Repeat(" ", maxFigure-20) + "</svg>"
	f, c := newFigures(), newCleaner()
	var shown int
	for range 5 {
		if fig := f.draw(c, func(w io.Writer) error { _, err := io.WriteString(w, big); return err }); fig.SVG != "" {
			shown++
		}
	}
	if want := maxFigureTotal / len(big); shown != want {
		t.Errorf("%d pictures shown, want %d", shown, want)
	}
}
