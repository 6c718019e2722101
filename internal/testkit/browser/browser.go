// Package browser runs a page in a real headless Chromium and reports what
// a reader would see: the requests the page made, what it wrote to the
// console, where chosen elements were drawn and whether they can be seen,
// and a screenshot. Tests use it to check that isocheck's HTML reports
// load nothing from anywhere and lay out their pictures legibly.
package browser

import (
	"slices"
	"strconv"
	"strings"
)

// Options say how to look at a page.
type Options struct {
	// Chromium is the browser to run; Find's when empty.
	Chromium string
	// Width and Height are the viewport's size in CSS pixels; 1280 by 900
	// when zero.
	Width, Height int
	// Selectors are the CSS selectors of the elements to report, in order.
	Selectors []string
	// Group, when set, is a selector of the parts of the page (such as
	// "section.anomaly"): each Box says which of them it is in.
	Group string
	// Screenshot asks for a PNG of the whole page; with ScreenshotJPEG
	// above 0, a JPEG of that quality (1 to 99) of the viewport only (the
	// first screen a reader sees), which is much smaller.
	Screenshot     bool
	ScreenshotJPEG int
	// TempDir is where the browser's throwaway profile is made (and removed
	// afterwards); the system's temporary directory when empty.
	TempDir string
}

// Page is what a reader of the page saw.
type Page struct {
	// Title is the document's title.
	Title string
	// Requests are the requests the page made other than for itself, in
	// order. Requests to anything but a file are blocked before they
	// leave the browser, but still listed here. Data URLs, which load
	// nothing, are not listed.
	Requests []Request
	// Console holds what the page wrote to the console, its uncaught
	// exceptions and the browser's log entries about it (a failed load).
	Console []Message
	// Boxes are the elements that matched Options.Selectors: those of the
	// first selector in document order, then those of the second, ...
	Boxes []Box
	// ViewportWidth is the width of the page's viewport, and ScrollWidth
	// and ScrollHeight the size of the whole document (of the root
	// element's scrollable area): a ScrollWidth above ViewportWidth means
	// the reader must scroll the whole page sideways.
	ViewportWidth, ScrollWidth, ScrollHeight float64
	// Screenshot is a PNG of the whole page (or a JPEG of its first
	// screen), when Options.Screenshot asked for it.
	Screenshot []byte
}

// Request is one request the page made.
type Request struct {
	URL string
	// Type is what the browser fetched it as (Image, Stylesheet, Script,
	// Font, ...).
	Type string
}

// Message is one line of the console.
type Message struct {
	// Level is "log", "info", "warning", "error" (console.error, or a
	// failed load the browser logged) or "exception" (an uncaught one).
	Level string
	Text  string
	// URL and Line say where it came from, when known (Line from 1).
	URL  string
	Line int
}

// Box is one element as drawn.
type Box struct {
	// Selector is the Options.Selectors entry it matched.
	Selector string
	// Text is its text content with runs of white space made one space.
	Text string
	// Data are its data-* attributes, by the name after "data-".
	Data map[string]string
	// X, Y, Width and Height are its bounding rectangle in page
	// coordinates (CSS pixels from the document's top left corner).
	X, Y, Width, Height float64
	// Visible says it can be seen: it has a non-zero size, and neither it
	// nor an ancestor is display:none, visibility:hidden or fully
	// transparent.
	Visible bool
	// FontSize is the size, in CSS pixels, its text is drawn at: its
	// computed font size, times the scale of an svg that holds it (an svg
	// shrunk to fit its box shrinks its text).
	FontSize float64
	// SVG is the index, among the page's outermost svg elements in
	// document order, of the one it is drawn in (itself, for such an svg);
	// -1 outside every svg.
	SVG int
	// Group is the index, among the elements matching Options.Group in
	// document order, of the nearest that holds it (itself included); -1
	// when none does, or Options.Group is empty.
	Group int
}

// Select returns the boxes that matched selector.
func (p *Page) Select(selector string) []Box {
	var out []Box
	for _, b := range p.Boxes {
		if b.Selector == selector {
			out = append(out, b)
		}
	}
	return out
}

// Errors returns the console's errors and uncaught exceptions.
func (p *Page) Errors() []Message {
	return slices.DeleteFunc(slices.Clone(p.Console), func(m Message) bool {
		return m.Level != "error" && m.Level != "exception"
	})
}

// String describes the box for a test's message: selector, data
// attributes, text and rectangle.
func (b Box) String() string {
	var s strings.Builder
	s.WriteString(b.Selector)
	keys := make([]string, 0, len(b.Data))
	for k := range b.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s.WriteString("[data-" + k + "=" + b.Data[k] + "]")
	}
	text := b.Text
	if len(text) > 40 {
		text = text[:40] + "…"
	}
	if text != "" {
		s.WriteString(" " + strconv.Quote(text))
	}
	s.WriteString(" at " + rect(b))
	return s.String()
}
