package format

import (
	"bytes"
	"testing"
)

func FuzzText(f *testing.F) {
	f.Add([]byte("w(0,1,1,1)\n r ( 0 , 1 , 1 , 2 ) \n\nw(5,2,0,7)\r\n\t w(0,2,1,1)\nr(5,0,0,7)"))
	f.Add([]byte("r(9223372036854775807,0,0,0)\nw(1,-1,0,0)\n"))
	// Aborted operations (txn -1) and IsoVista's initial transaction.
	f.Add([]byte("w(1,0,0,0)\nw(2,0,0,0)\nw(1,1,0,5)\nw(1,2,0,-1)\nw(2,2,1,-1)\nr(1,1,0,-1)\nw(2,3,1,7)\nr(1,1,0,5)\nw(1,4,0, -1 )\n"))
	f.Add([]byte("w(1,1,0,3)\nw(1,0,0,2)\nw(2,0,0,2)\n"))
	addCorpusSeed(f, 4096, "polysi", "galera.txt")
	addCorpusSeed(f, 4096, "polysi", "yugabyte.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz.txt", Text)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
		var out bytes.Buffer
		if err := Write(&out, h, Text); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := Read(bytes.NewReader(out.Bytes()), "fuzz.txt", Text)
		if err != nil {
			t.Fatalf("reading back %q: %v", out.Bytes(), err)
		}
		if !sameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", dump(h, false), dump(h2, false))
		}
	})
}
