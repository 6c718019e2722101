package format_test

import (
	"bytes"
	"testing"

	"github.com/isocheck/isocheck/format"
)

// FuzzConvert reads a small history in any format and converts it between
// JSONL, text and dbcop: the verdicts at every level must not change.
func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"session":0,"ops":[["r","x",null],["w","x",0],["w","y","v"]]}
{"session":1,"ops":[["r","x",0],["r","y",null],["w","y",-4]]}
{"session":1,"status":"aborted","ops":[["w","x",9]]}`))
	f.Add([]byte("w(1,1,0,0)\nr(1,0,1,1)\nw(1,2,1,1)\nr(1,1,0,2)\n"))
	f.Add([]byte(`{"session":"a","ops":[["w",1,1],["w",2,1]]}
{"session":"b","ops":[["r",1,1],["r",2,null]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := format.Read(bytes.NewReader(data), "fuzz", format.Auto)
		if err != nil || len(h.Txns) > 30 || len(h.Ops) > 200 {
			return
		}
		checkRoundTrips(t, h)
	})
}
