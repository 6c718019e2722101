package format_test

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// edgeInts are 64-bit integers around the limits of the native format and
// of history.Null (not 0, the initial value, which a JSONL history cannot
// write).
var edgeInts = []uint64{
	1, 1<<62 - 1, 1 << 62, 1<<62 + 1, math.MaxInt64, 1 << 63, 1<<63 + 1,
	1<<64 - 1<<62 - 1, 1<<64 - 1<<62, 1<<64 - 1<<62 + 1, math.MaxUint64 - 1, math.MaxUint64,
}

// TestDBCopIntegers reads dbcop values and keys at the edges, and checks
// that none is null and that they survive dbcop → JSONL → dbcop.
func TestDBCopIntegers(t *testing.T) {
	e := new(formattest.Bin).Header(1, uint64(len(edgeInts)), 1, uint64(len(edgeInts))).U64(1, 1, uint64(len(edgeInts)))
	for _, u := range edgeInts {
		e.Event(true, u, u, true)
	}
	e.U8(1)
	h, err := format.Read(bytes.NewReader(e.B), "edge.bincode", format.DBCop)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, h *history.History) {
		t.Helper()
		ops := h.OpsOf(0)
		if len(ops) != len(edgeInts) {
			t.Fatalf("%s: %d operations", what, len(ops))
		}
		for i, op := range ops {
			u := edgeInts[i]
			if op.Value == history.Null {
				t.Errorf("%s: value %d is null", what, u)
			}
			if got, ok := scan.ValueBits(h, op.Value); !ok || got != u {
				t.Errorf("%s: value %d read as %s", what, u, h.FormatValue(op.Value))
			}
			if got, want := h.FormatKey(op.Key), strconv.FormatUint(u, 10); got != want {
				t.Errorf("%s: key %d read as %s", what, u, got)
			}
		}
	}
	check("dbcop", h)
	j := formattest.RoundTrip(t, h, format.JSONL)
	check("dbcop → JSONL", j)
	var buf bytes.Buffer
	if err := format.Write(&buf, j, format.JSONL); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"18446744073709551615"`, `"9223372036854775808"`, `-1]`, `,4611686018427387904]`, `,9223372036854775808]`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSONL lacks %s:\n%s", want, buf.String())
		}
	}
	check("dbcop → JSONL → dbcop", formattest.RoundTrip(t, j, format.DBCop))
	check("dbcop → dbcop", formattest.RoundTrip(t, h, format.DBCop))
}

// TestTextIntegers does the same for text values and keys up to 2^63-1.
func TestTextIntegers(t *testing.T) {
	var in strings.Builder
	var ints []uint64
	for i, u := range edgeInts {
		if u <= math.MaxInt64 {
			ints = append(ints, u)
			in.WriteString("w(" + strconv.FormatUint(u, 10) + "," + strconv.FormatUint(u, 10) + ",0," + strconv.Itoa(i) + ")\n")
		}
	}
	h, err := format.Read(strings.NewReader(in.String()), "edge.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, h *history.History) {
		t.Helper()
		if len(h.Ops) != len(ints) {
			t.Fatalf("%s: %d operations", what, len(h.Ops))
		}
		for i, op := range h.Ops {
			if got, ok := scan.ValueBits(h, op.Value); !ok || got != ints[i] || op.Value == history.Null {
				t.Errorf("%s: value %d read as %s", what, ints[i], h.FormatValue(op.Value))
			}
			if got, want := h.FormatKey(op.Key), strconv.FormatUint(ints[i], 10); got != want {
				t.Errorf("%s: key %d read as %s", what, ints[i], got)
			}
		}
	}
	check("text", h)
	j := formattest.RoundTrip(t, h, format.JSONL)
	check("text → JSONL", j)
	check("text → JSONL → text", formattest.RoundTrip(t, j, format.Text))
	check("text → JSONL → dbcop", formattest.RoundTrip(t, j, format.DBCop))
}

// TestCobraIntegers reads Cobra values and keys above 2^62.
func TestCobraIntegers(t *testing.T) {
	log := new(formattest.CobraLog).S(1).W(5, math.MaxUint64, math.MaxUint64).W(6, 1<<63, 1<<62).C(1).
		S(2).R(1, 5, math.MaxUint64, math.MaxUint64).R(1, 6, 1<<63, 1<<62).C(2)
	dir := formattest.WriteDir(t, map[string][]byte{"T1.log": log.B})
	h, err := format.ReadFile(dir, format.Cobra)
	if err != nil {
		t.Fatal(err)
	}
	got := formattest.Dump(h, false)
	want := `init 0
session T1: 0 1
0 "0x1" sT1 committed: w(18446744073709551615,-1) w(9223372036854775808,"4611686018427387904")
1 "0x2" sT1 committed: r(18446744073709551615,-1) r(9223372036854775808,"4611686018427387904")
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteRenames checks the mapping of the initial state, values and keys
// to the integers of the text and dbcop formats.
func TestWriteRenames(t *testing.T) {
	in := `{"session":0,"id":"a","ops":[["r","x",null],["w","x",0],["w","y","hello"],["w",5,-3]]}
{"session":1,"id":"b","ops":[["r","x",0],["r","y",null],["r",5,-3],["w",2,1],["w","x",7],["w","y",1]]}
`
	h, err := format.Read(strings.NewReader(in), "h.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.Text); err != nil {
		t.Fatal(err)
	}
	// x: null is 0, and 0 is 1; y: null is 0, "hello" is 2 (1 is
	// written); 5: -3 is 1; 2: 1 is 1. Keys x and y are 0 and 1.
	want := `r(0,0,0,0)
w(0,1,0,0)
w(1,2,0,0)
w(5,1,0,0)
r(0,1,1,1)
r(1,0,1,1)
r(5,1,1,1)
w(2,1,1,1)
w(0,7,1,1)
w(1,1,1,1)
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	d := formattest.RoundTrip(t, h, format.DBCop)
	back := formattest.RoundTrip(t, d, format.JSONL)
	buf.Reset()
	if err := format.Write(&buf, back, format.JSONL); err != nil {
		t.Fatal(err)
	}
	// dbcop holds -3.
	wantJSONL := `{"session":0,"id":"s0t0","ops":[["r",0,null],["w",0,1],["w",1,2],["w",5,-3]]}
{"session":1,"id":"s1t0","ops":[["r",0,1],["r",1,null],["r",5,-3],["w",2,1],["w",0,7],["w",1,1]]}
`
	if buf.String() != wantJSONL {
		t.Errorf("JSONL → dbcop → JSONL: got\n%s\nwant\n%s", buf.String(), wantJSONL)
	}
}
