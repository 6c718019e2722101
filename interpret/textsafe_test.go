package interpret_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
)

// hostile is a lost update whose ids, sessions and keys hold what a
// terminal acts on: an OSC that sets the window title, a CSI that clears
// the screen, a newline, a carriage return and a right-to-left override.
const hostile = `{"session": "s\u001b]0;pwned\u0007", "id": "a\u001b]0;pwned\u0007", "ops": [["w", "k\u001b[2J", 100]]}
{"session": "s\u001b]0;pwned\u0007", "id": "b\nnewline", "ops": [["r", "k\u001b[2J", 100], ["w", "k\u001b[2J", 150]]}
{"session": "bob\r\u202e", "id": "withdraw\u202e", "ops": [["r", "k\u001b[2J", 100], ["w", "k\u001b[2J", 70]]}
{"session": "carol", "id": "c", "ops": [["r", "k\u001b[2J", 100]]}
`

// sgr matches the colour sequences the writers emit themselves.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// rawControl returns the first character of out that a terminal would act
// on, other than a newline and, with color, the writers' own colours.
func rawControl(out string, color bool) (string, bool) {
	if color {
		out = sgr.ReplaceAllString(out, "")
	}
	for _, r := range out {
		switch {
		case r == '\n':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == '\u202e', r >= '\u2066' && r <= '\u2069':
			return string(r), true
		}
	}
	return "", false
}

// TestWritersEscapeInput checks that no text writer passes a control
// character of the input through, that the verdict still shows, and that
// the report's JSON keeps the input's strings exactly.
func TestWritersEscapeInput(t *testing.T) {
	h := historytest.JSONL(t, hostile)
	rep, _ := minimal(t, h, level.SI)
	writers := []struct {
		name  string
		color bool
		write func(*bytes.Buffer) error
	}{
		{"WriteText", false, func(b *bytes.Buffer) error { return rep.WriteText(b) }},
		{"WriteTextColor", true, func(b *bytes.Buffer) error { return rep.WriteTextColor(b, true) }},
		{"WriteExplanation", false, func(b *bytes.Buffer) error { return rep.WriteExplanation(b, false) }},
		{"WriteExplanation color", true, func(b *bytes.Buffer) error { return rep.WriteExplanation(b, true) }},
		{"WriteDOT", false, func(b *bytes.Buffer) error { return rep.WriteDOT(b) }},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := w.write(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if c, ok := rawControl(out, w.color); ok {
				t.Errorf("output holds a raw %q:\n%s", c, out)
			}
			if !strings.Contains(out, "VIOLATED") && !strings.Contains(out, "violated") {
				t.Errorf("output does not say VIOLATED:\n%s", out)
			}
			for _, want := range []string{`k\x1b[2J`, `b\nnewline`, `withdraw\u202e`} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %s, the escaped input:\n%s", want, out)
				}
			}
		})
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back interpret.Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Anomaly.Cycles[0][0].Key; got != "k\x1b[2J" {
		t.Errorf("JSON's key = %q, want the input's %q", got, "k\x1b[2J")
	}
}
