package format

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/history"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
	}{
		{"auto", Auto}, {"", Auto}, {"JSONL", JSONL}, {"json", JSONL}, {"text", Text}, {"txt", Text},
		{"polysi", Text}, {"dbcop", DBCop}, {"bincode", DBCop}, {" Cobra ", Cobra},
	}
	for _, tt := range tests {
		if got, err := ParseFormat(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), `unknown history format "yaml"`) {
		t.Errorf("ParseFormat(yaml): %v", err)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{File: "galera.txt", Line: 12, Msg: "bad"}, "galera.txt:12: bad"},
		{&Error{File: "h.bincode", Offset: 0, Msg: "bad"}, "h.bincode: byte offset 0: bad"},
		{&Error{File: "h.bincode", Offset: 96, Msg: "bad"}, "h.bincode: byte offset 96: bad"},
		{&Error{File: "dir", Offset: -1, Msg: "bad"}, "dir: bad"},
		{&Error{Line: 3, Msg: "bad"}, "<input>:3: bad"},
		// What the name or the message quote of the input is escaped.
		{&Error{File: "h\x1b]0;x\a.edn", Line: 1, Msg: "not \x1bc\x00"}, `h\x1b]0;x\a.edn:1: not \x1bc\x00`},
		{&Error{File: "h", Offset: 2, Msg: "not \u202e"}, `h: byte offset 2: not \u202e`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		path string
		want Format
	}{
		{corpus(t, "polysi", "galera.txt"), Text},
		{corpus(t, "polysi", "yugabyte.txt"), Text},
		{corpus(t, "polysi", "dgraph.bincode"), DBCop},
		{corpus(t, "polysi", "20_100_15_10000_0.5_zipf__hist-00000.bincode"), DBCop},
		{corpus(t, "dbcop-oopsla19", "galera_all_writes", "3_30_20_180__hist-00000.bincode"), DBCop},
		{corpus(t, "polysi", "cobra-tpcc"), Cobra},
		{corpus(t, "polysi", "cobra-rubis", "T10.log"), Cobra},
	}
	dir := writeDir(t, map[string][]byte{
		"h.jsonl":    []byte("\n  {\"session\":0,\"ops\":[]}\n"),
		"h.txt":      []byte("\r\n w (1,2,3,4)\n"),
		"empty":      nil,
		"blank":      []byte("\xEF\xBB\xBF \r\n\t\n"),
		"junk":       []byte("hello"),
		"S.bin":      []byte("S\x00\x00\x00\x00\x00\x00\x00\x01C"),
		"short.log":  []byte("S\x00\x00\x00"),
		"tiny.dbcop": new(bin).header(0, 0, 0, 0).u64(0).b,
	})
	tests = append(tests, []struct {
		path string
		want Format
	}{
		{filepath.Join(dir, "h.jsonl"), JSONL},
		{filepath.Join(dir, "h.txt"), Text},
		{filepath.Join(dir, "tiny.dbcop"), DBCop},
		{filepath.Join(dir, "empty"), Empty},
		{filepath.Join(dir, "blank"), Empty},
	}...)
	for _, tt := range tests {
		if got, err := Detect(tt.path); err != nil || got != tt.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	for _, name := range []string{"junk", "S.bin", "short.log", "."} {
		path := filepath.Join(dir, name)
		f, err := Detect(path)
		if err == nil {
			t.Errorf("Detect(%s) = %q, want an error", name, f)
			continue
		}
		if e := checkError(t, err); e.File != path {
			t.Errorf("Detect(%s): error names %q", name, e.File)
		}
	}
	if _, err := Detect(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("Detect(missing): %v", err)
	}
}

func TestReadAuto(t *testing.T) {
	inputs := map[Format][]byte{
		JSONL: []byte(`{"session":0,"ops":[["w","x",1]]}`),
		Text:  []byte("w(1,1,0,0)\n"),
		DBCop: smallDBCop(),
	}
	for f, in := range inputs {
		_, info, err := ReadInfo(bytes.NewReader(in), "in", Auto)
		if err != nil || info.Format != f {
			t.Errorf("%s: format %v, error %v", f, info, err)
		}
	}
	_, err := Read(strings.NewReader("hello"), "in", Auto)
	if e := checkError(t, err); !strings.Contains(e.Msg, "cannot detect the format") {
		t.Errorf("got %v", err)
	}
	if _, err := Read(strings.NewReader(""), "in", "xml"); err == nil {
		t.Errorf("unknown format accepted")
	}
	if err := Write(&bytes.Buffer{}, &history.History{}, Cobra); err == nil {
		t.Errorf("Write(Cobra) succeeded")
	}
}

func TestCorpusPolySI(t *testing.T) {
	dir := corpus(t, "polysi")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	cobra := map[string][2]int{ // committed transactions, sessions
		"cobra-tpcc":    {13870, 24},
		"cobra-rubis":   {9358, 24},
		"cobra-twitter": {9571, 25},
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.IsDir():
			h, info := readCorpus(t, path, Cobra)
			committed := 0
			for _, tx := range h.Txns {
				if tx.Status == history.Committed {
					committed++
				}
			}
			want, ok := cobra[name]
			if !ok || committed != want[0] || len(h.Txns) != want[0] || len(h.Sessions) != want[1] {
				t.Errorf("%s: %d committed of %d transactions in %d sessions, want %v", name, committed, len(h.Txns), len(h.Sessions), want)
			}
			_ = info
		case strings.HasSuffix(name, ".bincode"):
			readCorpus(t, path, DBCop)
		case strings.HasSuffix(name, ".txt"):
			h, _ := readCorpus(t, path, Text)
			if len(h.Txns) == 0 || len(h.Sessions) < 2 {
				t.Errorf("%s: %d transactions in %d sessions", name, len(h.Txns), len(h.Sessions))
			}
		default:
			continue
		}
		n++
	}
	if n != 12 {
		t.Errorf("read %d histories, want 12", n)
	}
}

func TestCorpusDBCop(t *testing.T) {
	root := corpus(t, "dbcop-oopsla19")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.bincode"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 210 {
		t.Errorf("%d files, want 210", len(files))
	}
	failed := 0
	for _, path := range files {
		_, info := readCorpus(t, path, DBCop)
		failed += len(info.FailedEvents)
	}
	if failed == 0 {
		t.Errorf("no transaction with failed events")
	}
}

// readCorpus reads a corpus history, detecting its format, and checks it
// against its header if it is a dbcop file.
func readCorpus(t *testing.T, path string, want Format) (*history.History, *Info) {
	t.Helper()
	h, info, err := ReadFileInfo(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, h)
	if info.Format != want {
		t.Errorf("%s: format %s, want %s", path, info.Format, want)
	}
	if len(h.Txns) == 0 || len(h.Ops) == 0 {
		t.Errorf("%s: %d transactions, %d operations", path, len(h.Txns), len(h.Ops))
	}
	if hdr := info.DBCop; hdr != nil {
		if uint64(len(h.Sessions)) != hdr.Nodes {
			t.Errorf("%s: %d sessions, header says %d", path, len(h.Sessions), hdr.Nodes)
		}
		for s, txns := range h.Sessions {
			if uint64(len(txns)) != hdr.Transactions {
				t.Errorf("%s: session %d has %d transactions, header says %d", path, s, len(txns), hdr.Transactions)
				break
			}
		}
		if uint64(h.NumKeys()) > hdr.Variables {
			t.Errorf("%s: %d keys, header says %d", path, h.NumKeys(), hdr.Variables)
		}
		for i := range h.Txns {
			if n := uint64(len(h.OpsOf(i)) + info.FailedEvents[i]); n != hdr.Events {
				t.Errorf("%s: transaction %s has %d events, header says %d", path, h.Name(i), n, hdr.Events)
				break
			}
		}
		if hdr.Info == "" {
			t.Errorf("%s: no database name", path)
		}
		// Writing and reading back preserves the history.
		if h2 := roundTrip(t, h, DBCop); !sameButIDs(h, h2) {
			t.Errorf("%s: dbcop round trip changed the history", path)
		}
	}
	if h2 := roundTrip(t, h, JSONL); len(h2.Txns) != len(h.Txns) || len(h2.Ops) != len(h.Ops) {
		t.Errorf("%s: JSONL round trip changed the history", path)
	}
	return h, info
}
