package draw

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"r x = 1", 80, "r x = 1"},
		{"a\x01b", 80, `a\x01b`},
		{"a\x1b[31m", 80, `a\x1b[31m`},
		{"tab\there", 80, "tab here"},
		{"line\nbreak", 80, `line\x0abreak`},
		{"bad \xff byte", 80, "bad \uFFFD byte"},
		{"sep\u2028", 80, `sep\u2028`},
		{"abcdef", 3, "abc…"},
		{"héllo wörld", 5, "héllo…"},
		{"\x01\x02", 5, `\x01…`},
	}
	for _, tt := range tests {
		if got := clean(tt.in, tt.max); got != tt.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestCleanBoundsLongStrings(t *testing.T) {
	got := clean(strings.Repeat("\xff", 64<<10), maxLabel)
	if n := utf8.RuneCountInString(got); n > maxLabel+1 {
		t.Errorf("cleaned 64 KiB to %d runes, want at most %d", n, maxLabel+1)
	}
	if !utf8.ValidString(got) {
		t.Errorf("cleaned string is not valid UTF-8")
	}
}

func TestWrap(t *testing.T) {
	f := newFonts()
	tests := []struct {
		in    string
		width float64
		lines int
	}{
		{"short", 600, 1},
		{strings.Repeat("word ", 60), 200, 0},
		{strings.Repeat("x", 300), 100, 0},
		{"", 100, 0},
	}
	for _, tt := range tests {
		got := f.wrap(captionStyle, tt.in, tt.width)
		if tt.lines > 0 && len(got) != tt.lines {
			t.Errorf("wrap(%.20q) gave %d lines, want %d", tt.in, len(got), tt.lines)
		}
		if tt.in != "" && len(got) == 0 {
			t.Errorf("wrap(%.20q) lost the text", tt.in)
		}
		for _, l := range got {
			if w := f.width(captionStyle, l); w > tt.width {
				t.Errorf("line %q is %.0f wide, want at most %.0f", l, w, tt.width)
			}
		}
		if strings.Join(strings.Fields(strings.Join(got, "")), "") != strings.Join(strings.Fields(tt.in), "") {
			t.Errorf("wrap(%.20q) changed the text", tt.in)
		}
	}
}
