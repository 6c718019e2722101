package format_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/history"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want format.Format
	}{
		{"auto", format.Auto}, {"", format.Auto}, {"JSONL", format.JSONL}, {"json", format.JSONL}, {"text", format.Text}, {"txt", format.Text},
		{"polysi", format.Text}, {"dbcop", format.DBCop}, {"bincode", format.DBCop}, {" Cobra ", format.Cobra},
	}
	for _, tt := range tests {
		if got, err := format.ParseFormat(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := format.ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), `unknown history format "yaml"`) {
		t.Errorf("ParseFormat(yaml): %v", err)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    *format.Error
		want string
	}{
		{&format.Error{File: "galera.txt", Line: 12, Msg: "bad"}, "galera.txt:12: bad"},
		{&format.Error{File: "h.bincode", Offset: 0, Msg: "bad"}, "h.bincode: byte offset 0: bad"},
		{&format.Error{File: "h.bincode", Offset: 96, Msg: "bad"}, "h.bincode: byte offset 96: bad"},
		{&format.Error{File: "dir", Offset: -1, Msg: "bad"}, "dir: bad"},
		{&format.Error{Line: 3, Msg: "bad"}, "<input>:3: bad"},
		// What the name or the message quote of the input is escaped.
		{&format.Error{File: "h\x1b]0;x\a.edn", Line: 1, Msg: "not \x1bc\x00"}, `h\x1b]0;x\a.edn:1: not \x1bc\x00`},
		{&format.Error{File: "h", Offset: 2, Msg: "not \u202e"}, `h: byte offset 2: not \u202e`},
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
		want format.Format
	}{
		{formattest.Corpus(t, "polysi", "galera.txt"), format.Text},
		{formattest.Corpus(t, "polysi", "yugabyte.txt"), format.Text},
		{formattest.Corpus(t, "polysi", "dgraph.bincode"), format.DBCop},
		{formattest.Corpus(t, "polysi", "20_100_15_10000_0.5_zipf__hist-00000.bincode"), format.DBCop},
		{formattest.Corpus(t, "dbcop-oopsla19", "galera_all_writes", "3_30_20_180__hist-00000.bincode"), format.DBCop},
		{formattest.Corpus(t, "polysi", "cobra-tpcc"), format.Cobra},
		{formattest.Corpus(t, "polysi", "cobra-rubis", "T10.log"), format.Cobra},
	}
	dir := formattest.WriteDir(t, map[string][]byte{
		"h.jsonl":    []byte("\n  {\"session\":0,\"ops\":[]}\n"),
		"h.txt":      []byte("\r\n w (1,2,3,4)\n"),
		"empty":      nil,
		"blank":      []byte("\xEF\xBB\xBF \r\n\t\n"),
		"junk":       []byte("hello"),
		"S.bin":      []byte("S\x00\x00\x00\x00\x00\x00\x00\x01C"),
		"short.log":  []byte("S\x00\x00\x00"),
		"tiny.dbcop": new(formattest.Bin).Header(0, 0, 0, 0).U64(0).B,
	})
	tests = append(tests, []struct {
		path string
		want format.Format
	}{
		{filepath.Join(dir, "h.jsonl"), format.JSONL},
		{filepath.Join(dir, "h.txt"), format.Text},
		{filepath.Join(dir, "tiny.dbcop"), format.DBCop},
		{filepath.Join(dir, "empty"), format.Empty},
		{filepath.Join(dir, "blank"), format.Empty},
	}...)
	for _, tt := range tests {
		if got, err := format.Detect(tt.path); err != nil || got != tt.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	for _, name := range []string{"junk", "S.bin", "short.log", "."} {
		path := filepath.Join(dir, name)
		f, err := format.Detect(path)
		if err == nil {
			t.Errorf("Detect(%s) = %q, want an error", name, f)
			continue
		}
		if e := formattest.CheckError(t, err); e.File != path {
			t.Errorf("Detect(%s): error names %q", name, e.File)
		}
	}
	if _, err := format.Detect(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("Detect(missing): %v", err)
	}
}

func TestReadAuto(t *testing.T) {
	inputs := map[format.Format][]byte{
		format.JSONL: []byte(`{"session":0,"ops":[["w","x",1]]}`),
		format.Text:  []byte("w(1,1,0,0)\n"),
		format.DBCop: formattest.SmallDBCop(),
	}
	for f, in := range inputs {
		_, info, err := format.ReadInfo(bytes.NewReader(in), "in", format.Auto)
		if err != nil || info.Format != f {
			t.Errorf("%s: format %v, error %v", f, info, err)
		}
	}
	_, err := format.Read(strings.NewReader("hello"), "in", format.Auto)
	if e := formattest.CheckError(t, err); !strings.Contains(e.Msg, "cannot detect the format") {
		t.Errorf("got %v", err)
	}
	if _, err := format.Read(strings.NewReader(""), "in", "xml"); err == nil {
		t.Errorf("unknown format accepted")
	}
	if err := format.Write(&bytes.Buffer{}, &history.History{}, format.Cobra); err == nil {
		t.Errorf("Write(Cobra) succeeded")
	}
}

func TestCorpusPolySI(t *testing.T) {
	dir := formattest.Corpus(t, "polysi")
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
			h, info := readCorpus(t, path, format.Cobra)
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
			readCorpus(t, path, format.DBCop)
		case strings.HasSuffix(name, ".txt"):
			h, _ := readCorpus(t, path, format.Text)
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
	root := formattest.Corpus(t, "dbcop-oopsla19")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.bincode"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 210 {
		t.Errorf("%d files, want 210", len(files))
	}
	failed := 0
	for _, path := range files {
		_, info := readCorpus(t, path, format.DBCop)
		failed += len(info.FailedEvents)
	}
	if failed == 0 {
		t.Errorf("no transaction with failed events")
	}
}

// readCorpus reads a corpus history, detecting its format, and checks it
// against its header if it is a dbcop file.
func readCorpus(t *testing.T, path string, want format.Format) (*history.History, *format.Info) {
	t.Helper()
	h, info, err := format.ReadFileInfo(path, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
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
		if h2 := formattest.RoundTrip(t, h, format.DBCop); !formattest.SameButIDs(h, h2) {
			t.Errorf("%s: dbcop round trip changed the history", path)
		}
	}
	if h2 := formattest.RoundTrip(t, h, format.JSONL); len(h2.Txns) != len(h.Txns) || len(h2.Ops) != len(h.Ops) {
		t.Errorf("%s: JSONL round trip changed the history", path)
	}
	return h, info
}
