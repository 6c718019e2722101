package draw

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
)

// The font families the SVG names: metric-compatible with the Liberation
// fonts that measure the text and draw the PNG.
const (
	sansFamily = "Liberation Sans, Arial, Helvetica, sans-serif"
	monoFamily = "Liberation Mono, Courier New, Courier, monospace"
)

// style is how a piece of text is set.
type style struct {
	Size  float64 // in points, which are SVG pixels
	Bold  bool
	Mono  bool
	Color string // #rrggbb
}

// fonts measures text with the Liberation fonts.
type fonts struct{ cache *font.Cache }

func newFonts() *fonts { return &fonts{cache: font.NewCache(liberation.Collection())} }

// face is the font face that sets text in st.
func (f *fonts) face(st style) font.Face {
	fnt := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if st.Mono {
		fnt.Variant = "Mono"
	}
	if st.Bold {
		fnt.Weight = stdfont.WeightBold
	}
	return f.cache.Lookup(fnt, font.Points(st.Size))
}

// width is the advance of s set in st.
func (f *fonts) width(st style, s string) float64 {
	face := f.face(st)
	return float64(face.Width(s))
}

// Limits on what one string may draw.
const (
	maxLabel = 60  // edge labels, lane names, timeline labels
	maxLine  = 80  // a node's lines, notes
	maxText  = 400 // titles and captions before wrapping
)

// clean makes s safe and short enough to draw: invalid UTF-8 becomes
// U+FFFD, control characters a visible \xNN, and a string longer than max
// runes is cut with "…".
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		var piece string
		switch {
		case r == utf8.RuneError && size <= 1:
			piece = "\uFFFD"
		case r == '\t':
			piece = " "
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\uFEFF' ||
			(r >= 0xFFFE && r <= 0xFFFF):
			piece = fmt.Sprintf("\\x%02x", r)
			if r > 0xFF {
				piece = fmt.Sprintf("\\u%04x", r)
			}
		default:
			piece = string(r)
		}
		if n+utf8.RuneCountInString(piece) > max {
			b.WriteString("…")
			return b.String()
		}
		b.WriteString(piece)
		n += utf8.RuneCountInString(piece)
	}
	return b.String()
}

// wrap breaks s into lines no wider than width when set in st, at spaces
// where it can and anywhere where it must.
func (f *fonts) wrap(st style, s string, width float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if f.width(st, try) <= width {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = word
		for f.width(st, line) > width && utf8.RuneCountInString(line) > 1 {
			cut := f.fit(st, line, width)
			lines = append(lines, line[:cut])
			line = line[cut:]
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// fit is the length in bytes of the longest prefix of s, of at least one
// rune, no wider than width.
func (f *fonts) fit(st style, s string, width float64) int {
	_, first := utf8.DecodeRuneInString(s)
	end := first
	for i := first; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		if f.width(st, s[:i+size]) > width {
			break
		}
		i += size
		end = i
	}
	return end
}
