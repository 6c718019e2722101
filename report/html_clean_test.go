package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/isocheck/isocheck/draw"
)

func TestClean(t *testing.T) {
	long := strings.Repeat("é", maxShort+1)
	for _, tc := range []struct {
		name, in  string
		multiline bool
		want      string
	}{
		{"plain", "T1 read x=0", false, "T1 read x=0"},
		{"markup is left to the template", "<b>&", false, "<b>&"},
		{"newline and tab", "a\nb\tc\r\n", false, `a\nb\tc\r\n`},
		{"newline and tab kept", "a\nb\tc\r\nd\re", true, "a\nb\tc\nd\\re"},
		{"controls", "\x00\x1b[0m\x7f", false, `\x00\x1b[0m\x7f`},
		{"C1 control", "a\u0085b", false, `a\u0085b`},
		{"invalid UTF-8", "a\xffb\xc0", false, `a\xffb\xc0`},
		{"bidi override", "abc\u202edef\u2066", false, `abc\u202edef\u2066`},
		{"byte order mark", "\ufeffx", false, `\ufeffx`},
		{"line separator", "a\u2028b", true, `a\u2028b`},
		{"genuine replacement character", "\ufffd", false, "\ufffd"},
		{"at the limit", long[:2*maxShort], false, long[:2*maxShort]},
		{"over the limit", long, false, long[:2*maxShort] + "… (602 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCleaner()
			got := c.clean(tc.in, maxShort, tc.multiline)
			if got != tc.want {
				t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("clean(%q) is not valid UTF-8", tc.in)
			}
			if c.left != maxPageText-len(got) {
				t.Errorf("the cleaner counted %d bytes, want %d", maxPageText-c.left, len(got))
			}
		})
	}
}

func TestLineView(t *testing.T) {
	c := newCleaner()
	long := strings.Repeat("x", 250)
	got := lineView(draw.Line{{Text: long}, {Text: long, Mark: true}, {Text: "never shown"}}, c)
	if len(got) != 3 || got[2].Text != "…" || !got[1].Mark {
		t.Fatalf("lineView = %+v, want two spans then …", got)
	}
	if n := len(got[0].Text) + len(got[1].Text); n > maxShort+len("… (250 bytes)") {
		t.Errorf("the line shows %d bytes, want at most about %d", n, maxShort)
	}
}
