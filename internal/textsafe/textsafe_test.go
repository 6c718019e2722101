package textsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text, ünïcödé and 日本語", "plain text, ünïcödé and 日本語"},
		{`C:\path\x1b`, `C:\path\x1b`}, // backslashes are kept
		{"a\x1b]0;pwned\a", `a\x1b]0;pwned\a`},
		{"k\x1b[2J", `k\x1b[2J`},
		{"b\nnewline", `b\nnewline`},
		{"cr\rtab\tnul\x00", `cr\rtab\tnul\x00`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b2J", `csi\u009b2J`},
		{"abc\u202edef", `abc\u202edef`},
		{"\u2066iso\u2069 \u200e\u200f\u061c", `\u2066iso\u2069 \u200e\u200f\u061c`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad \xff\x9b byte", `bad \xff\x9b byte`},
		{"replacement \ufffd kept", "replacement \ufffd kept"},
		{"emoji 👩‍💻 kept", "emoji 👩‍💻 kept"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLines(t *testing.T) {
	in := "SI: VIOLATED\n  T\x1b[2J read\r\n"
	want := "SI: VIOLATED\n  T\\x1b[2J read\\r\n"
	if got := Lines(in); got != want {
		t.Errorf("Lines(%q) = %q, want %q", in, got, want)
	}
}

// unsafe reports whether r is a character no output of Escape may hold.
func unsafe(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// unescape undoes Escape on text that held no backslash.
func unescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 2
		switch s[i+1] {
		case 'x':
			n = 4
		case 'u':
			n = 6
		}
		// A \xHH escape is of one byte, not of the rune U+00HH.
		if s[i+1] == 'x' {
			v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
			if err != nil {
				t.Fatalf("bad escape %q in %q", s[i:i+n], s)
			}
			b.WriteByte(byte(v))
		} else {
			v, _, _, err := strconv.UnquoteChar(s[i:i+n], '"')
			if err != nil {
				t.Fatalf("bad escape %q in %q", s[i:i+n], s)
			}
			b.WriteRune(v)
		}
		i += n
	}
	return b.String()
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\x1b]0;pwned\a", "k\x1b[2J", "b\nnewline", "\u202e", "\xff\x9b", "\u009b", `a\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q, not valid UTF-8", s, e)
		}
		for _, r := range e {
			if unsafe(r) {
				t.Fatalf("Escape(%q) = %q holds %U", s, e, r)
			}
		}
		if Escape(e) != e {
			t.Fatalf("Escape(Escape(%q)) = %q, not %q", s, Escape(e), e)
		}
		if !strings.Contains(s, `\`) {
			if u := unescape(t, e); u != s {
				t.Fatalf("Escape(%q) = %q, which reads back as %q: two inputs would print alike", s, e, u)
			}
		}
	})
}
