package text_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
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
			h, err := format.Read(strings.NewReader(tt.in), "t.txt", format.Text)
			if err != nil {
				t.Fatal(err)
			}
			formattest.CheckConsistent(t, h)
			if got := formattest.Dump(h, true); got != tt.want {
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
		_, err := format.Read(strings.NewReader(tt.in), "bad.txt", format.Text)
		if err == nil {
			t.Errorf("%q: no error, want %q", tt.in, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.File != "bad.txt" || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q:\ngot  %v\nwant bad.txt:%d: ...%s...", tt.in, err, tt.line, tt.msg)
		}
	}
}

func TestWriteText(t *testing.T) {
	in := "w(0,1,1,1)\nr(0,1,1,2)\nw(5,2,0,7)\nw(0,2,1,1)\nr(5,0,0,7)\n"
	h, err := format.Read(strings.NewReader(in), "t.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.Text); err != nil {
		t.Fatal(err)
	}
	want := "w(0,1,1,1)\nw(0,2,1,1)\nr(0,1,1,2)\nw(5,2,0,7)\nr(5,0,0,7)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	h2 := formattest.RoundTrip(t, h, format.Text)
	if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b {
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
	if err := format.Write(&buf, b.History(), format.Text); err != nil {
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
			b.AddTxn(history.Txn{Session: b.Session("s"), Status: history.Unknown}, nil)
		}), "is unknown: the text format holds only committed and aborted transactions"},
		{build(0, func(b *history.Builder) {
			b.AddListTxn(history.Txn{Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.IntKey(1), Value: 1}}, nil)
		}), "the text format cannot hold a history of lists"},
		{build(0, func(b *history.Builder) {
			b.AddTxn(history.Txn{Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.IntKey(1), Value: 1}})
			b.AddOrder(b.IntKey(1), []history.Value{1})
		}), "the text format cannot hold stated version orders (key 1 has one)"},
	}
	for _, tt := range tests {
		err := format.Write(io.Discard, tt.h, format.Text)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("got %v, want %q", err, tt.msg)
		}
	}
}

// TestReadTextAborted reads PolySI's and Plume's aborted operations, whose
// transaction id is -1.
func TestReadTextAborted(t *testing.T) {
	in := `w(1,1,0,5)
w(1,2,0,-1)
w(2,2,1,-1)
r(1,1,0,-1)
w(2,3,1,7)
r(1,1,0,5)
w(1,4,0,-1)
w(2,4,1,-1)
w(3,1,0,6)
w(1,5,0, -1 )
`
	h, err := format.Read(strings.NewReader(in), "a.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	want := `init 0
session 0: 0 1 5 6
session 1: 2 3 4
0 "5" s0 committed @a.txt:1: w(1,1) r(1,1)
1 "" s0 aborted @a.txt:2: w(1,2) r(1,1) w(1,4)
2 "" s1 aborted @a.txt:3: w(2,2)
3 "7" s1 committed @a.txt:5: w(2,3)
4 "" s1 aborted @a.txt:8: w(2,4)
5 "6" s0 committed @a.txt:9: w(3,1)
6 "" s0 aborted @a.txt:10: w(1,5)
`
	if got := formattest.Dump(h, true); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.Text); err != nil {
		t.Fatal(err)
	}
	wantOut := `w(1,1,0,5)
r(1,1,0,5)
w(1,2,0,-1)
r(1,1,0,-1)
w(1,4,0,-1)
w(2,2,1,-1)
w(2,3,1,7)
w(2,4,1,-1)
w(3,1,0,6)
w(1,5,0,-1)
`
	if buf.String() != wantOut {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), wantOut)
	}
	if h2 := formattest.RoundTrip(t, h, format.Text); formattest.Dump(h, false) != formattest.Dump(h2, false) {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", formattest.Dump(h, false), formattest.Dump(h2, false))
	}

	for _, bad := range []struct{ in, msg string }{
		{"w(1,1,0,-2)", `txn must be a non-negative integer or -1 (aborted), got "-2"`},
		{"w(1,1,0,-10)", `txn must be a non-negative integer or -1 (aborted), got "-10"`},
		{"w(1,1,-1,1)", `session must be a non-negative integer, got "-1"`},
		{"w(1,1,0,-1,2)", `(too many fields)`},
		{"w(1,1,0,-1 x)", `(bad txn)`},
		{"w(1,1,0,-1) x", `(text after ')')`},
	} {
		_, err := format.Read(strings.NewReader(bad.in), "bad.txt", format.Text)
		if e := formattest.CheckError(t, err); e.Line != 1 || !strings.Contains(e.Msg, bad.msg) {
			t.Errorf("%s: got %v, want %q", bad.in, err, bad.msg)
		}
	}
}

// TestReadTextInitialState reads IsoVista's first transaction, which writes
// the initial value 0 to every key, as the initial state.
func TestReadTextInitialState(t *testing.T) {
	body := "w(1,1,1,1)\nr(2,0,2,2)\nr(1,1,2,2)\nw(3,9223372036854775807,2,2)\n"
	without, err := format.Read(strings.NewReader(body), "t.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	for _, init := range []string{
		"w(1,0,0,0)\nw(2,0,0,0)\nw(3,0,0,0)\n", // every key
		"w(3,0,9,100)\nw(99,0,9,100)\n",        // some, and others
		"w(1,0,3,0)\n",
	} {
		with, err := format.Read(strings.NewReader(init+body), "t.txt", format.Text)
		if err != nil {
			t.Fatal(err)
		}
		formattest.CheckConsistent(t, with)
		if a, b := formattest.Dump(without, false), formattest.Dump(with, false); a != b || !slices.Equal(without.KeyNames, with.KeyNames) || !slices.Equal(without.ValueNames, with.ValueNames) {
			t.Errorf("%q: got\n%s\nwant\n%s", init, b, a)
		}
		if with.Txns[0].Pos != int64(strings.Count(init, "\n")+1) {
			t.Errorf("%q: first transaction at line %d", init, with.Txns[0].Pos)
		}
	}
	// Only the first transaction, and only if it writes nothing but 0.
	for _, in := range []string{
		"w(1,1,1,1)\nw(2,0,0,0)\n",
		"w(1,0,0,0)\nr(1,0,0,0)\n",
		"w(1,0,0,0)\nw(1,1,0,0)\n",
		"w(1,0,0,-1)\n",
	} {
		h, err := format.Read(strings.NewReader(in), "t.txt", format.Text)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(h.Ops); got != strings.Count(in, "\n") {
			t.Errorf("%q: %d operations:\n%s", in, got, formattest.Dump(h, false))
		}
	}
	// A history whose first transaction writes only 0 is written after an
	// initial transaction, and reads back as it is.
	for _, in := range []string{
		"w(1,1,0,3)\nw(1,0,0,2)\nr(1,0,1,1)\n", // the first written is 2
		"w(1,1,5,0)\nw(1,0,5,1)\n",
	} {
		h, err := format.Read(strings.NewReader(in), "t.txt", format.Text)
		if err != nil {
			t.Fatal(err)
		}
		h = removeFirst(h)
		var buf bytes.Buffer
		if err := format.Write(&buf, h, format.Text); err != nil {
			t.Fatal(err)
		}
		h2, err := format.Read(bytes.NewReader(buf.Bytes()), "t.txt", format.Text)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b {
			t.Errorf("%q: wrote\n%s\nread back\n%s\nwant\n%s", in, buf.String(), b, a)
		}
	}
}

// removeFirst returns h without its first transaction.
func removeFirst(h *history.History) *history.History {
	b := history.NewBuilder(h.Init, h.Files...)
	for t := 1; t < len(h.Txns); t++ {
		tx := h.Txns[t]
		tx.Session = b.Session(h.SessionName(int(h.Txns[t].Session)))
		ops := slices.Clone(h.OpsOf(t))
		for i := range ops {
			ops[i].Key = b.Key(h.FormatKey(ops[i].Key))
		}
		b.AddTxn(tx, ops)
	}
	return b.History()
}
