package format

import (
	"bytes"
	"testing"
)

// FuzzAuto feeds arbitrary input to format detection and the reader it
// picks.
func FuzzAuto(f *testing.F) {
	f.Add([]byte(`{"session":0,"ops":[["w","x",1]]}`))
	f.Add([]byte("w(1,1,0,0)\n"))
	f.Add(smallDBCop())
	f.Add([]byte(" \n\r\n"))
	f.Add([]byte("\xEF\xBB\xBF\n{\"session\":1,\"ops\":[]}"))
	f.Add(new(cobraLog).S(1).C(1).b)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, info, err := ReadInfo(bytes.NewReader(data), "T1.log", Auto)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
		if isBlankInput(data) != (info.Format == Empty) {
			t.Fatalf("format %s of a blank input? %v", info.Format, isBlankInput(data))
		}
		if info.Format == Empty {
			if len(h.Txns) != 0 {
				t.Fatalf("%d transactions in an empty input", len(h.Txns))
			}
			return
		}
		// The format detected reads the input alike.
		h2, err := Read(bytes.NewReader(data), "T1.log", info.Format)
		if info.Format == Cobra {
			h2, err = readCobraBytes(data)
		}
		if err != nil || !sameHistory(h, h2) {
			t.Fatalf("read as %s: %v", info.Format, err)
		}
	})
}
