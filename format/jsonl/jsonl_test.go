package jsonl_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

func TestReadJSONL(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "full",
			in: `{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
{"session": "alice", "ops": [["w", 3, "hello"], ["r", "3", -7]]}

{"session": 0, "id": 9, "status": "aborted", "ops": []}
{"session":1,"status":"unknown","ops":[["r","y","hello"]],"start":5}
`,
			want: `init null
session 0: 0 2
session alice: 1
session 1: 3
0 "t7" s0 committed [120,135] @in.jsonl:1: r(x,null) w(x,5)
1 "2" salice committed @in.jsonl:2: w(3,"hello") r(3,-7)
2 "9" s0 aborted @in.jsonl:4:
3 "5" s1 unknown [5,-] @in.jsonl:5: r(y,"hello")
`,
		},
		{
			name: "whitespace, CRLF, no final newline, field order",
			in:   "  \t\r\n \t{ \"ops\" : [ [ \"w\" , 1 , 2 ] ,[\"r\",1,2]] , \"session\" : 0 }  \r\n{\"end\":3,\"ops\":[],\"session\":0,\"start\":-3,\"id\":null}",
			want: `init null
session 0: 0 1
0 "2" s0 committed @in.jsonl:2: w(1,2) r(1,2)
1 "3" s0 committed [-3,3] @in.jsonl:3:
`,
		},
		{
			name: "byte order mark",
			in:   "\xEF\xBB\xBF{\"session\":7,\"ops\":[[\"r\",\"k\",4611686018427387903],[\"r\",\"k\",-4611686018427387903]]}\n",
			want: `init null
session 7: 0
0 "1" s7 committed @in.jsonl:1: r(k,4611686018427387903) r(k,-4611686018427387903)
`,
		},
		{
			name: "integer and string names are the same",
			in: `{"session":1,"id":"a","ops":[["w",5,1]]}
{"session":"1","id":"b","ops":[["r","5",1],["w","05",2]]}
`,
			want: `init null
session 1: 0 1
0 "a" s1 committed @in.jsonl:1: w(5,1)
1 "b" s1 committed @in.jsonl:2: r(5,1) w(05,2)
`,
		},
		{name: "empty", in: "\n\n  \n", want: "init null\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := format.Read(strings.NewReader(tt.in), "in.jsonl", format.JSONL)
			if err != nil {
				t.Fatal(err)
			}
			formattest.CheckConsistent(t, h)
			if got := formattest.Dump(h, true); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if h.PosIsOffset || len(h.Files) != 1 || h.Files[0] != "in.jsonl" {
				t.Errorf("PosIsOffset %v, Files %q", h.PosIsOffset, h.Files)
			}
		})
	}
}

func TestReadJSONLStrings(t *testing.T) {
	in := `{"session":"a\"b\\","id":"\t","ops":[["w","k\u00e9\n","\ud83d\ude00/\/"],["r","\ud83d","x\u0000y"]]}` + "\n" +
		`{"session":"é","ops":[["w","ké` + "\n" + `","😀/\/"]]}` + "\n"
	// The second line is cut by the raw newline in the string: an error.
	_, err := format.Read(strings.NewReader(in), "s.jsonl", format.JSONL)
	if e := formattest.CheckError(t, err); e.Line != 2 || !strings.Contains(e.Msg, "unterminated string") {
		t.Fatalf("got %v, want an unterminated string on line 2", err)
	}
	in = in[:strings.Index(in, "\n")+1]
	h, err := format.Read(strings.NewReader(in), "s.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.SessionNames, []string{`a"b\`}; !slices.Equal(got, want) {
		t.Errorf("sessions %q, want %q", got, want)
	}
	if got, want := h.KeyNames, []string{"ké\n", "\uFFFD"}; !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	if got, want := h.ValueNames, []string{"😀//", "x\x00y"}; !slices.Equal(got, want) {
		t.Errorf("values %q, want %q", got, want)
	}
	if h.Txns[0].ID != "\t" {
		t.Errorf("id %q", h.Txns[0].ID)
	}
	h2 := formattest.RoundTrip(t, h, format.JSONL)
	if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	const ok = `{"session":0,"ops":[]}` + "\n"
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{`{"session":0,"ops":[["r","x",null]]} extra`, 1, `column 38: unexpected "extra" after the transaction object`},
		{`{"session":0,"opz":[]}`, 1, `column 14: unknown field "opz" (want session, id, status, ops, start or end; key and order in a version order; or nemesis and time in a fault)`},
		{`{"nemesis":"heal","session":0}`, 1, `a line with "nemesis" is a fault and holds only "nemesis" and "time"`},
		{`{"time":5}`, 1, `missing field "nemesis"`},
		{`{"nemesis":"","time":5}`, 1, `"nemesis" must be a string that says what the nemesis did`},
		{`{"nemesis":3}`, 1, `"nemesis" must be a string that says what the nemesis did, got an integer`},
		{`{"nemesis":"heal","time":"5"}`, 1, `"time" must be an integer, got a string`},
		{`{"ops":[]}`, 1, `missing field "session"`},
		{`{"session":0}`, 1, `missing field "ops"`},
		{`{}`, 1, `missing field "session"`},
		{ok + `{"session":0,"ops":[],"status":"comitted"}`, 2, `column 32: unknown status "comitted" (want committed, aborted, unknown or rolled-back)`},
		{`{"session":0,"ops":[],"status":1}`, 1, `"status" must be a string, got an integer`},
		{`{"session":0,"ops":[["r","x"]]}`, 1, `ops[0] has 2 elements: want [kind, key, value]`},
		{`{"session":0,"ops":[["r"]]}`, 1, `ops[0] has 1 element: want [kind, key, value]`},
		{`{"session":0,"ops":[[]]}`, 1, `ops[0] is empty`},
		{`{"session":0,"ops":[["w","x",1],["r","x",1,2]]}`, 1, `ops[1] has more than 3 elements`},
		{`{"session":0,"ops":[["x","x",1]]}`, 1, `ops[0]: unknown operation "x" (want "r", "w" or "append")`},
		{`{"session":0,"ops":[[1,"x",1]]}`, 1, `ops[0]: operation must be "r", "w" or "append", got an integer`},
		{`{"session":0,"ops":[["w","x",null]]}`, 1, `ops[0]: a write cannot write null`},
		{`{"session":0,"ops":[["w","x",18446744073709551616]]}`, 1, `column 30: number 18446744073709551616 out of range (integers must fit 64 bits, from -2^63 to 2^64-1; write others as strings)`},
		{`{"session":0,"ops":[["w","x",-9223372036854775809]]}`, 1, `column 30: number -9223372036854775809 out of range`},
		{`{"session":0,"ops":[["w",18446744073709551616,1]]}`, 1, `column 26: number 18446744073709551616 out of range`},
		{`{"session":0,"ops":[],"start":9223372036854775808}`, 1, `"start" 9223372036854775808 out of range (the largest is 2^63-1)`},
		{`{"session":0,"ops":[],"status":9223372036854775808}`, 1, `"status" must be a string, got an integer above 2^63-1`},
		{`{"session":0,"ops":[["w","x",1.5]]}`, 1, `column 30: 1.5 is not an integer`},
		{`{"session":0,"ops":[["w","x",1e3]]}`, 1, `1e3 is not an integer`},
		{`{"session":0,"ops":[["w","x",01]]}`, 1, `invalid number 01: leading zero`},
		{`{"session":0,"ops":[["w","x",-]]}`, 1, `expected a number`},
		{`{"session":0,"ops":[["w","x",true]]}`, 1, `value must be an integer, a string or null, got a boolean`},
		{`{"session":0,"ops":[["w",null,1]]}`, 1, `ops[0]: key must be a string or an integer, got null`},
		{`{"session":0,"ops":[["w",[1],1]]}`, 1, `key must be a string or an integer, got an array`},
		{`{"session":0,"ops":[],"start":1.5}`, 1, `1.5 is not an integer`},
		{`{"session":0,"ops":[],"start":"1"}`, 1, `"start" must be an integer, got a string`},
		{`{"session":0,"ops":[],"end":-9223372036854775808}`, 1, `"end" -9223372036854775808 out of range`},
		{`{"session":0,"ops":[],"start":10,"end":5}`, 1, `end 5 is before start 10`},
		{`{"session":0,"ops":[],"session":1}`, 1, `column 23: duplicate field "session"`},
		{`{"session":true,"ops":[]}`, 1, `"session" must be an integer or a string, got a boolean`},
		{`{"session":0,"id":{},"ops":[]}`, 1, `"id" must be a string or an integer, got an object`},
		{`{"session":0,"ops":{}}`, 1, `"ops" must be an array`},
		{`{"session":0,"ops":[1]}`, 1, `ops[0] must be an array [kind, key, value], got "1]}"`},
		{`{"session":0,"ops":[["w","x\u12","a"]]}`, 1, `invalid \u escape`},
		{`{"session":0,"ops":[["w","x\q","a"]]}`, 1, `invalid escape \q`},
		{`{"session":0,"ops":[["w","x` + "\t" + `"]]}`, 1, `control character 0x09 in string`},
		{`{"session":0,"ops":[["w","x","a`, 1, `unterminated string`},
		{`{"session":0,"ops":[["w","x","a\`, 1, `unterminated string`},
		{`{"session":0,"ops":[["w","` + "\xff" + `",1]]}`, 1, `not valid UTF-8`},
		{`{"session":0,"ops":[["w","\n` + "\xff" + `",1]]}`, 1, `not valid UTF-8`},
		{`{"session":0 "ops":[]}`, 1, `expected ',' or '}' after a field value, got "\"ops\":[]}"`},
		{`{"session":0,"ops":[["w","x",1]`, 1, `expected ',' or ']' after ops[0], got end of line`},
		{`{"session":0,"ops":[["w","x",1}]}`, 1, `expected ']' after ops[0]`},
		{`{"session":0,"ops":[["w" "x",1]]}`, 1, `expected ',' in ops[0]`},
		{`{"session" 0}`, 1, `expected ':' after field name`},
		{`{session:0}`, 1, `expected a field name, got "session:0}"`},
		{`{"session":nul}`, 1, `expected a JSON value, got "nul}"`},
		{ok + ok + `[1,2]`, 3, `column 1: expected a JSON object`},
		{ok + "\n" + `{"session":0,"ops":[["w","x",1]]`, 3, `column 33: expected ',' or '}' after a field value, got end of line`},
	}
	for _, tt := range tests {
		_, err := format.Read(strings.NewReader(tt.in), "bad.jsonl", format.JSONL)
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.in, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.File != "bad.jsonl" || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s:\ngot  %v\nwant bad.jsonl:%d: ...%s...", tt.in, err, tt.line, tt.msg)
		}
		if want := "bad.jsonl:" + strconv.Itoa(tt.line) + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q does not start with %q", err, want)
		}
	}
}

func TestWriteJSONL(t *testing.T) {
	b := history.NewBuilder(history.Null, "gen")
	s0, s1 := b.Session("west"), b.IntSession(3)
	x, y := b.Key("x"), b.IntKey(-12)
	hello := b.StringValue("hel\"lo\n")
	b.AddTxn(history.Txn{ID: "a", Session: s0, Start: 1, End: 2}, []history.Op{{Kind: history.Write, Key: x, Value: 1}, {Kind: history.Read, Key: y, Value: history.Null}})
	b.AddTxn(history.Txn{ID: "", Session: s1, Status: history.Aborted, Start: history.NoTime, End: 9}, []history.Op{{Kind: history.Write, Key: y, Value: hello}})
	b.AddTxn(history.Txn{ID: "7", Session: s0, Status: history.Unknown, Start: history.NoTime, End: history.NoTime}, nil)
	h := b.History()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	want := `{"session":"west","id":"a","ops":[["w","x",1],["r",-12,null]],"start":1,"end":2}
{"session":3,"id":"","status":"aborted","ops":[["w",-12,"hel\"lo\n"]],"end":9}
{"session":"west","id":"7","status":"unknown","ops":[]}
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	h2 := formattest.RoundTrip(t, h, format.JSONL)
	if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		h := formattest.RandomHistory(rng, 50, 8)
		var w1 bytes.Buffer
		if err := format.Write(&w1, h, format.JSONL); err != nil {
			t.Fatal(err)
		}
		h2, err := format.Read(bytes.NewReader(w1.Bytes()), "rt.jsonl", format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		formattest.CheckConsistent(t, h2)
		if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b || !formattest.SameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", a, b)
		}
		if h3 := formattest.RandomHistory(rng, 50, 8); formattest.SameHistory(h, h3) {
			t.Fatalf("different random histories are the same")
		}
		var w2 bytes.Buffer
		if err := format.Write(&w2, h2, format.JSONL); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("writing twice differs")
		}
	}
}

func TestWriteJSONLInitZero(t *testing.T) {
	in := "w(1,1,0,0)\nr(1,0,0,1)\nr(2,1,1,2)\n"
	h, err := format.Read(strings.NewReader(in), "t.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	want := `{"session":0,"id":"0","ops":[["w",1,1]]}
{"session":0,"id":"1","ops":[["r",1,null]]}
{"session":1,"id":"2","ops":[["r",2,1]]}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	h, err = format.Read(strings.NewReader("w(1,1,0,0)\nw(1,0,0,1)\n"), "t.txt", format.Text)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Write(io.Discard, h, format.JSONL); err == nil || !strings.Contains(err.Error(), "writes the initial value 0") {
		t.Errorf("writing the initial value: got %v", err)
	}
}

func TestWriteJSONLErrors(t *testing.T) {
	b := history.NewBuilder(history.Null)
	b.AddTxn(history.Txn{Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.Key("k"), Value: history.Null}})
	if err := format.Write(io.Discard, b.History(), format.JSONL); err == nil || !strings.Contains(err.Error(), "writes null") {
		t.Errorf("write of null: got %v", err)
	}
	b = history.NewBuilder(history.Null)
	b.AddTxn(history.Txn{Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.Key("k"), Value: 1 << 62}})
	if err := format.Write(io.Discard, b.History(), format.JSONL); err == nil || !strings.Contains(err.Error(), "out of the range") {
		t.Errorf("large value: got %v", err)
	}
	b = history.NewBuilder(history.Null)
	b.AddTxn(history.Txn{Session: b.Session("s")}, []history.Op{{Kind: history.Write, Key: b.Key("\xff"), Value: 1}})
	if err := format.Write(io.Discard, b.History(), format.JSONL); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("bad key: got %v", err)
	}
}

func TestReadJSONLLists(t *testing.T) {
	in := `{"session":0,"ops":[["r","x",null],["r","y",[]]]}
{"session":0,"ops":[["append","x",1],["append","x","two"],["r","x",[1,"two"]]]}
{"key":"x","order":[1,"two",3]}
{"session":1,"status":"unknown","ops":[["append","x",3],["append",5,-4]]}
{"session":1,"status":"aborted","ops":[["r","x",[1]],["r",5,[-4]],["r","y",null]]}
{"order":[-4],"key":5}
`
	h, err := format.Read(strings.NewReader(in), "l.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	want := `init null
session 0: 0 1
session 1: 2 3
0 "1" s0 committed: r(x,null) r(y,null)
1 "2" s0 committed: w(x,1) w(x,"two") r(x,"two")
2 "4" s1 unknown: w(x,3) w(5,-4)
3 "5" s1 aborted: r(x,1) r(5,-4) r(y,null)
lists true
op 4 reads 1 "two"
op 7 reads 1
op 8 reads -4
order x: 1 "two" 3
order 5: -4
`
	if got := formattest.Dump(h, false) + formattest.DumpLists(h); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	wantOut := `{"session":0,"id":"1","ops":[["r","x",[]],["r","y",[]]]}
{"session":0,"id":"2","ops":[["append","x",1],["append","x","two"],["r","x",[1,"two"]]]}
{"session":1,"id":"4","status":"unknown","ops":[["append","x",3],["append",5,-4]]}
{"session":1,"id":"5","status":"aborted","ops":[["r","x",[1]],["r",5,[-4]],["r","y",[]]]}
{"key":"x","order":[1,"two",3]}
{"key":5,"order":[-4]}
`
	if buf.String() != wantOut {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), wantOut)
	}
	h2 := formattest.RoundTrip(t, h, format.JSONL)
	if a, b := formattest.Dump(h, false)+formattest.DumpLists(h), formattest.Dump(h2, false)+formattest.DumpLists(h2); a != b {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}

	// Orders hold for registers too; a history of only null reads is one
	// of registers.
	in = `{"session":0,"ops":[["w","x",1],["w","x",2],["r","y",null]]}
{"key":"x","order":[2,1]}
`
	h, err = format.Read(strings.NewReader(in), "o.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formattest.DumpLists(h), "lists false\norder x: 2 1\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	buf.Reset()
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	if want := `{"session":0,"id":"1","ops":[["w","x",1],["w","x",2],["r","y",null]]}
{"key":"x","order":[2,1]}
`; buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestReadJSONLListErrors(t *testing.T) {
	const (
		ap  = `{"session":0,"ops":[["append","x",1]]}` + "\n"
		lr  = `{"session":0,"ops":[["r","x",[1]]]}` + "\n"
		w   = `{"session":0,"ops":[["w","y",1]]}` + "\n"
		r   = `{"session":0,"ops":[["r","y",1]]}` + "\n"
		nul = `{"session":0,"ops":[["r","y",null],["r","z",null]]}` + "\n"
	)
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{ap + w, 2, `column 22: ops[0] writes with "w", but line 1 appends: a history holds either lists ("append", reads of arrays) or registers ("w", reads of single values)`},
		{w + nul + ap, 3, `ops[0] appends, but line 1 writes with "w"`},
		{nul + lr + r, 3, `column 30: ops[0] reads a single value, but line 2 reads a list`},
		{r + lr, 2, `column 30: ops[0] reads a list, but line 1 reads a single value`},
		{`{"session":0,"ops":[["append","x",1],["w","x",2]]}`, 1, `ops[1] writes with "w", but line 1 appends`},
		{`{"session":0,"ops":[["r","x",[]],["r","x",5]]}`, 1, `ops[1] reads a single value, but line 1 reads a list`},
		{`{"session":0,"ops":[["append","x",[1]]]}`, 1, `column 35: ops[0]: an append writes one value, not an array`},
		{`{"session":0,"ops":[["w","x",[1]]]}`, 1, `ops[0]: a write writes one value, not an array`},
		{`{"session":0,"ops":[["append","x",null]]}`, 1, `ops[0]: a write cannot write null`},
		{`{"session":0,"ops":[["r","x",[1,null]]]}`, 1, `column 33: ops[0]: element 1 of the list cannot be null`},
		{`{"session":0,"ops":[["r","x",[1,[2]]]]}`, 1, `ops[0]: element 1 of the list must be an integer, a string or null, got an array`},
		{`{"session":0,"ops":[["r","x",[1 2]]]}`, 1, `expected ',' or ']' after element 0 of the list of ops[0], got "2]]]}"`},
		{`{"session":0,"ops":[["r","x",[1,2]`, 1, `column 35: expected ']' after ops[0], got end of line`},
		{`{"key":"x"}`, 1, `missing field "order" (a line with "key" states a version order)`},
		{`{"order":[]}`, 1, `missing field "key" of the version order`},
		{`{"session":0,"key":"x","order":[1]}`, 1, `a line with "key" or "order" states a version order and holds only those two fields, not a transaction's`},
		{`{"key":"x","order":[1],"ops":[]}`, 1, `holds only those two fields`},
		{`{"key":"x","order":1}`, 1, `"order" must be an array of the values written to the key, in the order they were installed, got "1}"`},
		{`{"key":"x","order":[1,null]}`, 1, `order[1] cannot be null`},
		{`{"key":"x","order":[1,2,1]}`, 1, `column 25: order[2] repeats order[0], 1: a value is installed once`},
		{`{"key":"x","order":[1,"1"]}`, 1, `names value 1, which`}, // distinct values; 1 is not written
		{`{"key":null,"order":[]}`, 1, `"key" must be a string or an integer, got null`},
		{ap + `{"key":"x","order":[1]}` + "\n" + `{"key":"y","order":[]}` + "\n" + `{"order":[],"key":"x"}`, 4, `a second version order of key "x": the first is at bad.jsonl:2`},
		{ap + `{"key":"x","order":[1,2]}` + "\n", 2, `the order of key x names value 2, which no transaction writes to it`},
		{`{"key":"x","order":[1]}` + "\n" + `{"session":0,"ops":[["r","x",[1]]]}`, 1, `the order of key x names value 1, which no transaction writes to it`},
	}
	for _, tt := range tests {
		_, err := format.Read(strings.NewReader(tt.in), "bad.jsonl", format.JSONL)
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.in, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.File != "bad.jsonl" || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s:\ngot  %v\nwant bad.jsonl:%d: ...%s...", tt.in, err, tt.line, tt.msg)
		}
	}
}

// TestJSONLIntegerEdges reads integers at the edges of the native range
// and of 64 bits: those of 2^62 and more are named values, the same as the
// strings of their digits, and are written back as integers.
func TestJSONLIntegerEdges(t *testing.T) {
	edges := []string{
		"4611686018427387903", "-4611686018427387903", // ±(2^62-1): integers
		"4611686018427387904", "-4611686018427387904", // ±2^62: named
		"9223372036854775807", "-9223372036854775808", // int64
		"9223372036854775808", "18446744073709551615", // above int64, u64
	}
	var in strings.Builder
	for _, e := range edges {
		fmt.Fprintf(&in, `{"session":%s,"id":%s,"ops":[["w",%s,%s],["r",%s,%s],["w","s",%q]]}`+"\n", e, e, e, e, e, e, e)
	}
	h, err := format.Read(strings.NewReader(in.String()), "edges.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	for i, e := range edges {
		ops := h.OpsOf(i)
		named := i >= 2
		if got := h.FormatValue(ops[0].Value); named && got != strconv.Quote(e) || !named && got != e {
			t.Errorf("%s read as %s", e, got)
		}
		if named != (ops[0].Value >= history.StringBase) {
			t.Errorf("%s: value %d", e, ops[0].Value)
		}
		if ops[0].Value != ops[1].Value || named != (ops[0].Value == ops[2].Value) {
			t.Errorf("%s: values %v", e, ops)
		}
		if h.FormatKey(ops[0].Key) != e || h.SessionName(int(h.Txns[i].Session)) != e || h.Txns[i].ID != e {
			t.Errorf("%s: key %s, session %s, id %s", e, h.FormatKey(ops[0].Key), h.SessionName(int(h.Txns[i].Session)), h.Txns[i].ID)
		}
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	for _, e := range edges[2:] {
		if !strings.Contains(buf.String(), ","+e+"]") {
			t.Errorf("%s is not written as an integer:\n%s", e, buf.String())
		}
	}
	h2 := formattest.RoundTrip(t, h, format.JSONL)
	if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b || !formattest.SameHistory(h, h2) {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}
	// Strings of digits that are not integers of that range stay strings.
	for _, s := range []string{"18446744073709551616", "-9223372036854775809", "04611686018427387904", "4611686018427387903", "-0", "99999999999999999999999"} {
		if scan.BigIntName(s) {
			t.Errorf("bigIntName(%q)", s)
		}
		in := `{"session":0,"ops":[["w","x",` + strconv.Quote(s) + `]]}`
		h, err := format.Read(strings.NewReader(in), "s.jsonl", format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := format.Write(&buf, h, format.JSONL); err != nil || !strings.Contains(buf.String(), strconv.Quote(s)) {
			t.Errorf("%q written as %s (%v)", s, buf.String(), err)
		}
	}
}

// randomListHistory builds a random native history of lists, with stated
// orders of some keys.
func randomListHistory(rng *rand.Rand, txns, ops int) *history.History {
	b := history.NewBuilder(history.Null, "random")
	keys := []history.Key{b.Key("x"), b.IntKey(7), b.Key("k\"é")}
	written := make([][]history.Value, len(keys))
	next := history.Value(1)
	var buf []history.Op
	var lists [][]history.Value
	for i := 0; i < txns; i++ {
		buf, lists = buf[:0], lists[:0]
		for j := rng.IntN(ops + 1); j > 0; j-- {
			k := rng.IntN(len(keys))
			op := history.Op{Key: keys[k]}
			var l []history.Value
			if rng.IntN(2) == 0 {
				op.Kind = history.Write
				op.Value = next
				if rng.IntN(3) == 0 {
					op.Value = b.StringValue("v" + strconv.Itoa(int(next)))
				}
				next++
				written[k] = append(written[k], op.Value)
			} else {
				l = written[k][:rng.IntN(len(written[k])+1)]
			}
			buf = append(buf, op)
			lists = append(lists, l)
		}
		tx := history.Txn{ID: "t" + strconv.Itoa(i), Session: b.IntSession(int64(rng.IntN(3))), Status: history.Status(rng.IntN(3)), Start: history.NoTime, End: history.NoTime}
		b.AddListTxn(tx, buf, lists)
	}
	for k := range keys {
		if rng.IntN(2) == 0 {
			b.AddOrder(keys[k], written[k][:rng.IntN(len(written[k])+1)])
		}
	}
	return b.History()
}

func TestJSONLListRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50; i++ {
		h := randomListHistory(rng, 20, 6)
		h2 := formattest.RoundTrip(t, h, format.JSONL)
		formattest.CheckConsistent(t, h2)
		if a, b := formattest.Dump(h, false)+formattest.DumpLists(h), formattest.Dump(h2, false)+formattest.DumpLists(h2); a != b {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", a, b)
		}
	}
}

// TestJSONLFaults: the lines of a nemesis are kept as the history's
// faults, in order, and written back after the transactions.
func TestJSONLFaults(t *testing.T) {
	in := `{"session":0,"id":"a","ops":[["w","x",1]],"start":1,"end":2}
{"nemesis":"partition 0-2 1-2","time":5}
{"session":1,"id":"b","ops":[["r","x",1]]}
{"nemesis":"heal\u001b[31m"}
`
	h, err := format.Read(strings.NewReader(in), "f.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []history.Fault{{Time: 5, What: "partition 0-2 1-2", Pos: 2}, {Time: history.NoTime, What: "heal\x1b[31m", Pos: 4}}
	if !reflect.DeepEqual(h.Faults, want) || len(h.Txns) != 2 {
		t.Fatalf("faults %+v and %d transactions, want %+v and 2", h.Faults, len(h.Txns), want)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	wantOut := `{"session":0,"id":"a","ops":[["w","x",1]],"start":1,"end":2}
{"session":1,"id":"b","ops":[["r","x",1]]}
{"nemesis":"partition 0-2 1-2","time":5}
{"nemesis":"heal\u001b[31m"}
`
	if got := buf.String(); got != wantOut {
		t.Errorf("written:\n%s\nwant\n%s", got, wantOut)
	}
}
