package format

import (
	"bytes"
	"testing"
)

func FuzzDBCop(f *testing.F) {
	f.Add(smallDBCop())
	f.Add(new(bin).header(0, 0, 0, 0).u64(0).b)
	f.Add(new(bin).header(1, 1, 1, 1).u64(1, 1, 1).event(true, 1, 1, true).u8(1).b)
	addCorpusSeed(f, 1<<20, "polysi", "20_10_15_10000_0.5_uniform__hist-00000.bincode")
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz.bincode", DBCop)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
		var out bytes.Buffer
		if err := Write(&out, h, DBCop); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := Read(bytes.NewReader(out.Bytes()), "fuzz.bincode", DBCop)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !sameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", dump(h, false), dump(h2, false))
		}
	})
}
