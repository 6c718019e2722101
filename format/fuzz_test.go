package format

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	// Lists and stated orders.
	f.Add([]byte(`{"session":0,"ops":[["r","x",null],["r","y",[]]]}
{"session":0,"ops":[["append","x",1],["append","x","two"],["r","x",[1,"two"]]]}
{"key":"x","order":[1,"two",3]}
{"session":1,"status":"unknown","ops":[["append","x",3],["append",5,-4]]}
{"session":1,"status":"aborted","ops":[["r","x",[1]],["r",5,[-4]]]}
{"order":[-4],"key":5}
`))
	f.Add([]byte(`{"session":0,"ops":[["w","x",1],["w","x",2],["r","y",null]]}
{ "key" : "x" , "order" : [ 2 , 1 ] }
{"session":0,"ops":[["w","x",4611686018427387904],["r","x","4611686018427387904"],["w",18446744073709551615,-9223372036854775808]]}
`))
	f.Add([]byte(`{"session":0,"ops":[["append","x",1]]}
{"session":0,"ops":[["w","x",2]]}
`))
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
		if a, b := dumpLists(h), dumpLists(h2); a != b {
			t.Fatalf("round trip changed the lists or orders:\n%s\nto\n%s", a, b)
		}
	})
}

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

// Layout bits of FuzzCobra: files besides T1.log and T2.log.
const (
	layoutEmpty  = 1 << iota // an empty T3.log
	layoutOther              // a file that is not a log
	layoutDir                // a directory named T4.log
	layoutBlank              // a blank T5.log
	layoutLink               // T6.log, a symbolic link to T1.log
	layoutSubdir             // a subdirectory holding a T7.log
	layoutNoLogs             // no T1.log and T2.log
	layoutFIFO               // a FIFO named T8.log
)

// FuzzCobra reads Cobra directories of two logs, a and b, and odd files
// chosen by layout.
func FuzzCobra(f *testing.F) {
	t1 := new(cobraLog).S(0x10).W(100, 7, 0xabc).R(cobraInit, cobraInit, 8, 0).C(0x10).
		S(0x11).R(0x10, 100, 7, 0xabc).R(cobraNull, cobraNull, 9, 0).b
	t2 := new(cobraLog).S(1).C(1).S(2).b
	f.Add(t1, t2, uint8(0))
	f.Add(t1, []byte{}, uint8(layoutEmpty|layoutOther|layoutBlank|layoutSubdir))
	f.Add(t1, t2, uint8(layoutDir))
	f.Add(t1, t2, uint8(layoutLink))
	f.Add([]byte(" \n"), []byte{}, uint8(layoutNoLogs))
	f.Add([]byte{}, t2, uint8(layoutFIFO))
	// Reads of writes in the other log, with and without the value
	// written; keys whose values are ambiguous.
	f.Add(new(cobraLog).S(0x10).R(0x20, 200, 1, 11).W(100, 2, 22).C(0x10).b,
		new(cobraLog).S(0x20).W(200, 1, 11).C(0x20).S(0x21).R(0x10, 100, 2, 23).b, uint8(0))
	f.Add(new(cobraLog).S(1).W(101, 1, 7).W(102, 1, 7).W(103, 2, 0).R(1, 101, 1, 7).R(7, 777, 5, 1).C(1).b,
		new(cobraLog).S(2).R(cobraInit, cobraInit, 3, 5).R(1, 103, 2, 0).S(3).b, uint8(0))
	if data, err := os.ReadFile(filepath.Join(corpusDir, "polysi", "cobra-tpcc", "T10.log")); err == nil {
		f.Add(data[:min(len(data), 2048)], t2, uint8(0))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, layout uint8) {
		dir := t.TempDir()
		write := func(name string, data []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		logs := 0
		if layout&layoutNoLogs == 0 {
			write("T1.log", a)
			write("T2.log", b)
			logs += 2
		}
		if layout&layoutEmpty != 0 {
			write("T3.log", nil)
			logs++
		}
		if layout&layoutOther != 0 {
			write("notes.txt", a)
		}
		bad := false // a log is not a regular file
		if layout&layoutDir != 0 {
			if err := os.Mkdir(filepath.Join(dir, "T4.log"), 0o755); err != nil {
				t.Fatal(err)
			}
			bad = true
		}
		if layout&layoutBlank != 0 {
			write("T5.log", []byte(" \r\n\t"))
			logs++
		}
		if layout&layoutLink != 0 {
			if err := os.Symlink(filepath.Join(dir, "T1.log"), filepath.Join(dir, "T6.log")); err != nil {
				t.Skip(err)
			}
			logs++ // a dangling link without T1.log: an error
		}
		if layout&layoutSubdir != 0 {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sub", "T7.log"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if layout&layoutFIFO != 0 {
			if err := syscall.Mkfifo(filepath.Join(dir, "T8.log"), 0o600); err != nil {
				t.Skip(err)
			}
			bad = true
		}
		if bad {
			logs = -1
		}
		h, info, err := ReadFileInfo(dir, Cobra)
		h2, info2, err2 := ReadFileInfo(dir, Auto)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("cobra: %v; auto: %v", err, err2)
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && layout&(layoutLink|layoutNoLogs) == layoutLink|layoutNoLogs {
				return // T6.log is a dangling link: the file cannot be opened
			}
			e := checkError(t, err)
			switch {
			case logs == 0 && !strings.Contains(e.Msg, "no Cobra T*.log files"):
				t.Fatalf("no logs: %v", err)
			case bad && !strings.Contains(e.Msg, "not a regular file"):
				t.Fatalf("a log that is not a regular file: %v", err)
			}
			return
		}
		if logs <= 0 {
			t.Fatalf("read %d transactions, want an error", len(h.Txns))
		}
		checkConsistent(t, h)
		if info.Format != Cobra || info2.Format != Cobra || !sameHistory(h, h2) {
			t.Fatalf("cobra and auto differ: %s, %s", info.Format, info2.Format)
		}
		if len(h.Sessions) != logs {
			t.Fatalf("%d sessions, want %d", len(h.Sessions), logs)
		}
		// Every Cobra history converts to JSONL and back.
		var out bytes.Buffer
		if err := Write(&out, h, JSONL); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if _, err := Read(&out, "cobra.jsonl", JSONL); err != nil {
			t.Fatalf("reading back: %v", err)
		}
		// The first log alone reads as a history of one session.
		if _, err := readCobraBytes(a); err != nil {
			checkError(t, err)
		}
	})
}

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
