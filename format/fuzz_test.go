package format_test

import (
	"bytes"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
)

// FuzzAuto feeds arbitrary input to format detection and the reader it
// picks.
func FuzzAuto(f *testing.F) {
	f.Add([]byte(`{"session":0,"ops":[["w","x",1]]}`))
	f.Add([]byte("w(1,1,0,0)\n"))
	f.Add(formattest.SmallDBCop())
	f.Add([]byte(" \n\r\n"))
	f.Add([]byte("\xEF\xBB\xBF\n{\"session\":1,\"ops\":[]}"))
	f.Add(new(formattest.CobraLog).S(1).C(1).B)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, info, err := format.ReadInfo(bytes.NewReader(data), "T1.log", format.Auto)
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		formattest.CheckConsistent(t, h)
		if scan.IsBlankInput(data) != (info.Format == format.Empty) {
			t.Fatalf("format %s of a blank input? %v", info.Format, scan.IsBlankInput(data))
		}
		if info.Format == format.Empty {
			if len(h.Txns) != 0 {
				t.Fatalf("%d transactions in an empty input", len(h.Txns))
			}
			return
		}
		// The format detected reads the input alike.
		h2, err := format.Read(bytes.NewReader(data), "T1.log", info.Format)
		if info.Format == format.Cobra {
			h2, err = formattest.ReadCobraBytes(data)
		}
		if err != nil || !formattest.SameHistory(h, h2) {
			t.Fatalf("read as %s: %v", info.Format, err)
		}
	})
}
