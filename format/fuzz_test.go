package format

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// addCorpusSeed adds the first max bytes of a corpus file as a seed, if the
// corpus is present.
func addCorpusSeed(f *testing.F, max int, elem ...string) {
	data, err := os.ReadFile(filepath.Join(append([]string{corpusDir}, elem...)...))
	if err != nil {
		return
	}
	if len(data) > max {
		data = data[:max]
	}
	f.Add(data)
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"session": 0, "id": "t7", "status": "committed", "ops": [["r","x",null],["w","x",5]], "start": 120, "end": 135}
{"session": "alice", "ops": [["w", 3, "hello"], ["r", "3", -7]]}

{"session": 0, "id": 9, "status": "aborted", "ops": []}
{"session":1,"status":"unknown","ops":[["r","y","h\u00e9\"llo\ud83d\ude00"]],"start":5}
`))
	f.Add([]byte(`{"session":"a\"b\\","id":"\t","ops":[["w","k\u00e9\n","\ud83d\ude00/\/"],["r","\ud83d","x\u0000y"]]}`))
	f.Add([]byte("\xEF\xBB\xBF { \"ops\" : [ [ \"w\" , 1 , 2 ] ] , \"session\" : -1 , \"end\" : 1e3 }\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz.jsonl", JSONL)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
		var out bytes.Buffer
		if err := Write(&out, h, JSONL); err != nil {
			t.Fatalf("Write: %v", err)
		}
		h2, err := Read(bytes.NewReader(out.Bytes()), "fuzz.jsonl", JSONL)
		if err != nil {
			t.Fatalf("reading back %q: %v", out.Bytes(), err)
		}
		if !sameHistory(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", dump(h, false), dump(h2, false))
		}
	})
}

func FuzzText(f *testing.F) {
	f.Add([]byte("w(0,1,1,1)\n r ( 0 , 1 , 1 , 2 ) \n\nw(5,2,0,7)\r\n\t w(0,2,1,1)\nr(5,0,0,7)"))
	f.Add([]byte("r(9223372036854775807,0,0,0)\nw(1,-1,0,0)\n"))
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

func FuzzCobra(f *testing.F) {
	f.Add(new(cobraLog).S(0x10).W(100, 7, 0xabc).R(cobraInit, cobraInit, 8, 0).C(0x10).
		S(0x11).R(0x10, 100, 7, 0xabc).R(cobraNull, cobraNull, 9, 0).b)
	f.Add(new(cobraLog).S(1).C(1).S(2).b)
	addCorpusSeed(f, 2048, "polysi", "cobra-tpcc", "T10.log")
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readCobraBytes(data)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
	})
}

// FuzzAuto feeds arbitrary input to format detection and the reader it
// picks.
func FuzzAuto(f *testing.F) {
	f.Add([]byte(`{"session":0,"ops":[["w","x",1]]}`))
	f.Add([]byte("w(1,1,0,0)\n"))
	f.Add(smallDBCop())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(bytes.NewReader(data), "fuzz", Auto)
		if err != nil {
			checkError(t, err)
			return
		}
		checkConsistent(t, h)
	})
}
