// Package textsafe escapes text from a history before isocheck prints it
// to a terminal.
//
// A history is input that anyone may have written: its ids, sessions, keys
// and values can hold control characters. Printed raw, an escape sequence
// sets the terminal's title or clears its screen, a carriage return or a
// newline rewrites or splits a line of a report, and a Unicode bidi
// override shows text in another order than it has; any of them can hide
// a verdict. Every text output of isocheck that shows such strings passes
// them through Escape. Error messages quote them with strconv.Quote (%q),
// which escapes the same characters; JSON and the history formats escape
// by their own rules and do not use this package.
package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// Escape returns s with every character that a terminal would act on
// rather than show written as a Go escape: the C0 controls (\n, \t, \x1b,
// ...), DEL (\x7f), the C1 controls (\u009b), the Unicode bidi controls
// (overrides, embeddings, isolates and marks such as \u202e) and the line
// and paragraph separators (\u2028, \u2029). A byte that is not part of
// valid UTF-8 is written \xff. Everything else, backslashes included, is
// kept: Escape returns s itself when it holds nothing to escape.
//
// The result is valid UTF-8 with none of those characters, so Escape of
// its result is the result. Two strings without a backslash that differ
// have results that differ.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, size) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			writeByte(&b, s[i])
		case r < 0x80:
			if c := short(r); c != 0 {
				b.WriteByte('\\')
				b.WriteByte(c)
			} else {
				writeByte(&b, byte(r))
			}
		default:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[r>>shift&0xf])
			}
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether the rune r, decoded from size bytes, is one
// Escape escapes.
func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError:
		return size == 1 // an invalid byte, not a U+FFFD written as such
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// short returns the letter of the C escape of an ASCII control, or 0.
func short(r rune) byte {
	switch r {
	case '\a':
		return 'a'
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	case '\v':
		return 'v'
	}
	return 0
}

func writeByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// Lines is Escape for text of several lines: it keeps the newlines
// between them and escapes everything else Escape does. It is for text
// that a package outside isocheck's own reports has formatted.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}
