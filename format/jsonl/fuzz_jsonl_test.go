package jsonl_test

import (
	"bytes"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
{"session": "alice", "ops": [["w", 3, "hello"], ["r", "3", -7]]}

{"session": 0, "id": 9, "status": "aborted", "ops": []}
{"session":1,"status":"unknown","ops":[["r","y","h\u00e9\"llo\ud83d\ude00"]],"start":5}
`))
	f.Add([]byte(`{"session":"a\"b\\","id":"\t","ops":[["w","k\u00e9\n","\ud83d\ude00/\/"],["r","\ud83d","x\u0000y"]]}`))
	f.Add([]byte("\xEF\xBB\xBF { \"ops\" : [ [ \"w\" , 1 , 2 ] ] , \"session\" : -1 , \"end\" : 1e3 }\r\n"))
	// Lists and stated orders.
	f.Add([]byte(`{"session":0,"ops":[["r","x",null],["r","y",[]]]}
{"session":0,"ops":[["append","x",1],["append","x","two"],["r","x",[1,"two"]]]}
{"key":"x","order":[1,"two",3]}
{"session":1,"status":"unknown","ops":[["append","x",3],["append",5,-4]]}
{"session":1,"status":"aborted","ops":[["r","x",[1]],["r",5,[-4]]]}
{"order":[-4],"key":5}
`))
	f.Add([]byte(`{"session":0,"ops":[["w","x",1]],"start":1,"end":2}
{"nemesis":"partition 0-2 1-2","time":3}
{"time":null,"nemesis":"heal\u001b[2J"}
`))
	f.Add([]byte(`{"session":0,"ops":[["w","x",1],["w","x",2],["r","y",null]]}
{ "key" : "x" , "order" : [ 2 , 1 ] }
{"session":0,"ops":[["w","x",4611686018427387904],["r","x","4611686018427387904"],["w",18446744073709551615,-9223372036854775808]]}
`))
	f.Add([]byte(`{"session":0,"ops":[["append","x",1]]}
{"session":0,"ops":[["w","x",2]]}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := format.Read(bytes.NewReader(data), "fuzz.jsonl", format.JSONL)
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		formattest.CheckConsistent(t, h)
		var out bytes.Buffer
		if err := format.Write(&out, h, format.JSONL); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := format.Read(bytes.NewReader(out.Bytes()), "fuzz.jsonl", format.JSONL)
		if err != nil {
			t.Fatalf("reading back %q: %v", out.Bytes(), err)
		}
		if !formattest.SameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", formattest.Dump(h, false), formattest.Dump(h2, false))
		}
		if a, b := formattest.DumpLists(h), formattest.DumpLists(h2); a != b {
			t.Fatalf("round trip changed the lists or orders:\n%s\nto\n%s", a, b)
		}
	})
}
