package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The longest strings the page shows, in characters; a longer one is cut
// and says how long it was.
const (
	// maxShort bounds a name, a key, a status or a source position.
	maxShort = 300
	// maxProse bounds a sentence or a paragraph: a description, a
	// summary, a reason, a note.
	maxProse = 2000
	// maxBlock bounds preformatted text (an anomaly's Detail).
	maxBlock = 16 << 10
)

// maxPageText is how many bytes of text, after cleaning, one page shows in
// all; past it, tables stop early and say how many rows they left out.
// Each row shown also costs rowCost, so that many short rows are bounded
// too.
const (
	maxPageText = 400 << 10
	rowCost     = 64
)

// cleaner makes strings safe to read on the page: it replaces control
// characters, invalid UTF-8 and the characters that reorder text with
// visible escapes, cuts long strings, and keeps count of the text the
// page holds so far.
type cleaner struct {
	// left is how many bytes of text the page may still hold.
	left int
}

func newCleaner() *cleaner { return &cleaner{left: maxPageText} }

// full reports whether the page holds all the text it may.
func (c *cleaner) full() bool { return c.left <= 0 }

// row charges the cost of one more table row or list item.
func (c *cleaner) row() { c.left -= rowCost }

// short cleans a name or a value shown on one line.
func (c *cleaner) short(s string) string { return c.clean(s, maxShort, false) }

// prose cleans a sentence or a paragraph, shown on one line that wraps.
func (c *cleaner) prose(s string) string { return c.clean(s, maxProse, false) }

// block cleans preformatted text, keeping its newlines and tabs.
func (c *cleaner) block(s string) string { return c.clean(s, maxBlock, true) }

// clean returns s with every character a reader could not see (or that
// would change how the text around it reads) written as a Go escape,
// each invalid byte as \xNN, and, past max characters, the rest replaced
// by "… (N bytes)". Newlines and tabs are kept when multiline is set, and
// a carriage return before a newline is dropped.
func (c *cleaner) clean(s string, max int, multiline bool) string {
	var b strings.Builder
	for i, n := 0, 0; i < len(s); n++ {
		if n == max {
			fmt.Fprintf(&b, "… (%d bytes)", len(s))
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case multiline && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			n--
		case hidden(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	c.left -= b.Len()
	return b.String()
}

// hidden reports whether r is a character the page must not show as it
// is: a control character, a line or paragraph separator, a byte-order
// mark, or a character that changes the direction of the text around it.
func hidden(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f', r == '\ufeff':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	case r == '\u2028', r == '\u2029':
		return true
	}
	return false
}

// escape writes r as Go writes it in a string literal.
func escape(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
