package dbcop_test

import (
	"bytes"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

func FuzzDBCop(f *testing.F) {
	f.Add(formattest.SmallDBCop())
	f.Add(new(formattest.Bin).Header(0, 0, 0, 0).U64(0).B)
	f.Add(new(formattest.Bin).Header(1, 1, 1, 1).U64(1, 1, 1).Event(true, 1, 1, true).U8(1).B)
	formattest.AddCorpusSeed(f, 1<<20, "polysi", "20_10_15_10000_0.5_uniform__hist-00000.bincode")
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := format.Read(bytes.NewReader(data), "fuzz.bincode", format.DBCop)
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		formattest.CheckConsistent(t, h)
		var out bytes.Buffer
		if err := format.Write(&out, h, format.DBCop); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := format.Read(bytes.NewReader(out.Bytes()), "fuzz.bincode", format.DBCop)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !formattest.SameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", formattest.Dump(h, false), formattest.Dump(h2, false))
		}
	})
}
