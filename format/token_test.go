package format_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// TestHugeTokens checks that error messages quote at most a short prefix
// of a bad token, with its length.
func TestHugeTokens(t *testing.T) {
	const n = 1 << 20
	digits := strings.Repeat("9", n)
	word := strings.Repeat("z", n)
	tests := []struct {
		name string
		f    format.Format
		in   string
		want string // in the message
	}{
		{"number", format.JSONL, `{"session":0,"ops":[["w","x",` + digits + `]]}`, "number 9999999999999999999999999999999999999999… (1048576 bytes) out of range"},
		{"fraction", format.JSONL, `{"session":0,"ops":[["w","x",1.` + digits + `]]}`, "1." + strings.Repeat("9", 38) + "… (1048578 bytes) is not an integer"},
		{"field", format.JSONL, `{"` + word + `":1}`, `unknown field "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"… (1048576 bytes)`},
		{"status", format.JSONL, `{"session":0,"status":"` + word + `","ops":[]}`, `unknown status "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"… (1048576 bytes)`},
		{"operation", format.JSONL, `{"session":0,"ops":[["` + word + `","x",1]]}`, `unknown operation "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"… (1048576 bytes)`},
		{"junk", format.JSONL, `{"session":0,"ops":` + word + `}`, `got "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"… (1048577 bytes)`},
		{"text line", format.Text, "w(" + word + ")", `got "w(zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"… (1048579 bytes)`},
		{"text number", format.Text, "w(" + digits + ",1,1,1)", "key 9999999999999999999999999999999999999999… (1048576 bytes) out of range"},
		{"text negative", format.Text, "w(1,-" + digits + ",1,1)", `got "-999999999999999999999999999999999999999"… (1048577 bytes)`},
		{"multibyte", format.JSONL, `{"session":0,"status":"` + strings.Repeat("é", n) + `","ops":[]}`, `unknown status "` + strings.Repeat("é", 20) + `"… (2097152 bytes)`},
	}
	for _, tt := range tests {
		_, err := format.Read(strings.NewReader(tt.in), "h", tt.f)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		msg := err.Error()
		if len(msg) > 300 || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: got %q (%d bytes), want at most 300 bytes with %q", tt.name, scan.Cut(msg), len(msg), tt.want)
		}
	}

	// Writers too.
	b := history.NewBuilder(history.Null)
	s := b.Session("s")
	b.AddTxn(history.Txn{ID: word, Session: s, Status: history.Unknown}, []history.Op{{Kind: history.Write, Key: b.Key(word), Value: b.StringValue(word)}})
	h := b.History()
	for _, f := range []format.Format{format.Text, format.DBCop} {
		err := format.Write(io.Discard, h, f)
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "(1048576 bytes)") {
			t.Errorf("Write(%s): %d-byte error %q", f, len(err.Error()), scan.Cut(err.Error()))
		}
	}
	b = history.NewBuilder(0)
	b.AddTxn(history.Txn{ID: word, Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.IntKey(1), Value: 0}})
	if err := format.Write(&bytes.Buffer{}, b.History(), format.JSONL); err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "(1048576 bytes)") {
		t.Errorf("Write(JSONL): %v", err)
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{strings.Repeat("a", 40), `"` + strings.Repeat("a", 40) + `"`},
		{strings.Repeat("a", 41), `"` + strings.Repeat("a", 40) + `"… (41 bytes)`},
		{"a" + strings.Repeat("é", 30), `"a` + strings.Repeat("é", 19) + `"… (61 bytes)`},
		{"\x00\xff" + strings.Repeat("b", 50), `"\x00\xff` + strings.Repeat("b", 38) + `"… (52 bytes)`},
	}
	for _, tt := range tests {
		if got := scan.Snippet([]byte(tt.in)); got != tt.want {
			t.Errorf("snippet(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := scan.Quote(tt.in); got != tt.want {
			t.Errorf("quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
