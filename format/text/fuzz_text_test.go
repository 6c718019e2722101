package text_test

import (
	"bytes"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

func FuzzText(f *testing.F) {
	f.Add([]byte("w(0,1,1,1)\n r ( 0 , 1 , 1 , 2 ) \n\nw(5,2,0,7)\r\n\t w(0,2,1,1)\nr(5,0,0,7)"))
	f.Add([]byte("r(9223372036854775807,0,0,0)\nw(1,-1,0,0)\n"))
	// Aborted operations (txn -1) and IsoVista's initial transaction.
	f.Add([]byte("w(1,0,0,0)\nw(2,0,0,0)\nw(1,1,0,5)\nw(1,2,0,-1)\nw(2,2,1,-1)\nr(1,1,0,-1)\nw(2,3,1,7)\nr(1,1,0,5)\nw(1,4,0, -1 )\n"))
	f.Add([]byte("w(1,1,0,3)\nw(1,0,0,2)\nw(2,0,0,2)\n"))
	formattest.AddCorpusSeed(f, 4096, "polysi", "galera.txt")
	formattest.AddCorpusSeed(f, 4096, "polysi", "yugabyte.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := format.Read(bytes.NewReader(data), "fuzz.txt", format.Text)
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		formattest.CheckConsistent(t, h)
		var out bytes.Buffer
		if err := format.Write(&out, h, format.Text); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := format.Read(bytes.NewReader(out.Bytes()), "fuzz.txt", format.Text)
		if err != nil {
			t.Fatalf("reading back %q: %v", out.Bytes(), err)
		}
		if !formattest.SameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", formattest.Dump(h, false), formattest.Dump(h2, false))
		}
	})
}
