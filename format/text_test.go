package format

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/history"
)

func TestReadText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "interleaved transactions",
			in:   "w(0,1,1,1)\n r ( 0 , 1 , 1 , 2 ) \n\nw(5,2,0,7)\r\n\t w(0,2,1,1)\nr(5,0,0,7)",
			want: `init 0
session 1: 0 1
session 0: 2
0 "1" s1 committed @t.txt:1: w(0,1) w(0,2)
1 "2" s1 committed @t.txt:2: r(0,1)
2 "7" s0 committed @t.txt:4: w(5,2) r(5,0)
`,
		},
		{
			name: "large numbers and BOM",
			in:   "\xEF\xBB\xBFr(9223372036854775807,9223372036854775807,9223372036854775807,9223372036854775807)\n",
			want: `init 0
session 9223372036854775807: 0
0 "9223372036854775807" s9223372036854775807 committed @t.txt:1: r(9223372036854775807,"9223372036854775807")
`,
		},
		{name: "empty", in: "", want: "init 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(tt.in), "t.txt", Text)
			if err != nil {
				t.Fatal(err)
			}
			checkConsistent(t, h)
			if got := dump(h, true); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestReadTextErrors(t *testing.T) {
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{"w(0,1,1)", 1, `expected r(key,value,session,txn) or w(key,value,session,txn), got "w(0,1,1)" (too few fields)`},
		{"w(0,1,1,1,1)", 1, `got "w(0,1,1,1,1)" (too many fields)`},
		{"\nx(0,1,1,1)", 2, `expected r(key,value,session,txn) or w(key,value,session,txn), got "x(0,1,1,1)"`},
		{"w 0,1,1,1)", 1, `got "w 0,1,1,1)"`},
		{"w(0,-1,1,1)", 1, `value must be a non-negative integer, got "-1"`},
		{"w(0,1,1,9223372036854775808)", 1, `txn 9223372036854775808 out of range (the largest is 9223372036854775807)`},
		{"w(0,1,1,1) x", 1, `(text after ')')`},
		{"w(0,a,1,1)", 1, `(bad value)`},
		{"w(0,1,1,1", 1, `(bad txn)`},
		{"w(0,1 2,1,1)", 1, `(bad value)`},
		{"w(0,1,1,1)\nw(0,2,1,2)\nw(0,2,2,1)", 3, `transaction 1 is in session 2 here but in session 1 at line 1`},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.in), "bad.txt", Text)
		if err == nil {
			t.Errorf("%q: no error, want %q", tt.in, tt.msg)
			continue
		}
		e := checkError(t, err)
		if e.File != "bad.txt" || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q:\ngot  %v\nwant bad.txt:%d: ...%s...", tt.in, err, tt.line, tt.msg)
		}
	}
}

func TestWriteText(t *testing.T) {
	in := "w(0,1,1,1)\nr(0,1,1,2)\nw(5,2,0,7)\nw(0,2,1,1)\nr(5,0,0,7)\n"
	h, err := Read(strings.NewReader(in), "t.txt", Text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, h, Text); err != nil {
		t.Fatal(err)
	}
	want := "w(0,1,1,1)\nw(0,2,1,1)\nr(0,1,1,2)\nw(5,2,0,7)\nr(5,0,0,7)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	h2 := roundTrip(t, h, Text)
	if a, b := dump(h, false), dump(h2, false); a != b {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}

	// Names that are not numbers are replaced by indices; empty
	// transactions are dropped.
	b := history.NewBuilder(0)
	s := b.Session("alice")
	b.AddTxn(history.Txn{ID: "x", Session: s}, []history.Op{{Kind: history.Write, Key: b.IntKey(3), Value: 4}})
	b.AddTxn(history.Txn{ID: "y", Session: s}, nil)
	b.AddTxn(history.Txn{ID: "z", Session: b.IntSession(9)}, []history.Op{{Kind: history.Read, Key: b.IntKey(3), Value: 4}})
	buf.Reset()
	if err := Write(&buf, b.History(), Text); err != nil {
		t.Fatal(err)
	}
	if want := "w(3,4,0,0)\nr(3,4,1,2)\n"; buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriteTextErrors(t *testing.T) {
	build := func(init history.Value, f func(b *history.Builder)) *history.History {
		b := history.NewBuilder(init)
		f(b)
		return b.History()
	}
	tests := []struct {
		h   *history.History
		msg string
	}{
		{build(0, func(b *history.Builder) {
			b.AddTxn(history.Txn{Session: b.Session("s"), Status: history.Aborted}, nil)
		}), "is aborted: the text format holds only committed transactions"},
	}
	for _, tt := range tests {
		err := Write(io.Discard, tt.h, Text)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("got %v, want %q", err, tt.msg)
		}
	}
}
