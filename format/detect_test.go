package format_test

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// detectInputs are inputs of every format Detect tells apart, by name.
var detectInputs = []struct {
	name string
	data string
	want format.Format
}{
	{"h.jsonl", "{\"session\":0,\"ops\":[[\"w\",\"x\",1]]}\n", format.JSONL},
	{"h.txt", "w(1,2,3,4)\n", format.Text},
	{"h.edn", "{:type :invoke, :f :txn, :value [[:w 1 2]], :process 0}\n", format.EDN},
	{"h.json", "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"w\",1,2]],\"process\":0}\n", format.ElleJSON},
	{"h.sql", "{\"session\":0,\"level\":\"SER\",\"events\":[]}\n", format.SQL},
	{"init.sql", "\n\n{\"init\":[]}\n", format.SQL},
	{"empty", "", format.Empty},
	{"blank", "\xEF\xBB\xBF \r\n\t\n", format.Empty},
	{"long-blank.sql", strings.Repeat("\n", format.SniffLen) + "{\"init\":[]}\n", format.SQL},
	{"T1.log", "S\x00\x00\x00\x00\x00\x00\x00\x01C\x00\x00\x00\x00\x00\x00\x00\x01", format.Cobra},
}

// DetectBytes says of bytes what Detect says of a file that holds them.
func TestDetectBytes(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range detectInputs {
		got, err := format.DetectBytes(tt.name, []byte(tt.data))
		if err != nil || got != tt.want {
			t.Errorf("DetectBytes(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		if f, err := format.Detect(path); f != got || err != nil {
			t.Errorf("Detect(%s) = %q, %v; DetectBytes says %q", tt.name, f, err, got)
		}
	}
	if f, err := format.DetectBytes("junk", []byte("hello")); err == nil {
		t.Errorf("DetectBytes(junk) = %q, want an error", f)
	} else if e := formattest.CheckError(t, err); e.File != "junk" {
		t.Errorf("DetectBytes(junk): error names %q", e.File)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range detectInputs {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := format.Resolve(path, format.Auto); err != nil || got != tt.want {
			t.Errorf("Resolve(%s, auto) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
		// A format asked for is the format to read in, whatever the content.
		if got, err := format.Resolve(path, format.EDN); err != nil || got != format.EDN {
			t.Errorf("Resolve(%s, edn) = %q, %v; want edn", tt.name, got, err)
		}
	}
	if got, err := format.Resolve(filepath.Join(dir, "missing"), format.SQL); err != nil || got != format.SQL {
		t.Errorf("Resolve(missing, sql) = %q, %v; want sql", got, err)
	}
	if _, err := format.Resolve(filepath.Join(dir, "missing"), format.Auto); !os.IsNotExist(err) {
		t.Errorf("Resolve(missing, auto): %v", err)
	}
	// A FIFO can be read only once: Resolve leaves it to the reader,
	// without reading it (which would block: it has no writer).
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if got, err := format.Resolve(fifo, format.Auto); err != nil || got != format.Auto {
		t.Errorf("Resolve(fifo, auto) = %q, %v; want auto", got, err)
	}
}

func TestDetectJepsen(t *testing.T) {
	tests := map[string]format.Format{
		"{:type :invoke}":                             format.EDN,
		"  \n[{:type :invoke}]":                       format.EDN,
		"; comment\n{:type :invoke}":                  format.EDN,
		"#jepsen.history.Op{:type :invoke}":           format.EDN,
		"#_ 1 {:type :invoke}":                        format.EDN,
		"[]":                                          format.EDN,
		"({:type :ok})":                               format.EDN,
		`{"type": "invoke", "process": 0}`:            format.ElleJSON,
		`{"index": 0, "type": "invoke"}`:              format.ElleJSON,
		"[\n  {\"process\": 0}]":                      format.ElleJSON,
		`{"session": 0, "ops": []}`:                   format.JSONL,
		`{"ops": [], "session": 0, "type": "x"}`:      format.JSONL,
		`{}`:                                          format.JSONL,
		"w(1,1,1,1)":                                  format.Text,
		`{ "process" : 1, "type": "ok", "value": []}`: format.ElleJSON,
	}
	for src, want := range tests {
		got, err := format.Sniff("h", []byte(src), false)
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", src, got, err, want)
		}
	}
	for _, s := range []string{"edn", "jepsen", "EDN"} {
		if f, err := format.ParseFormat(s); err != nil || f != format.EDN {
			t.Errorf("ParseFormat(%q) = %v %v", s, f, err)
		}
	}
	for _, s := range []string{"elle-json", "ellejson"} {
		if f, err := format.ParseFormat(s); err != nil || f != format.ElleJSON {
			t.Errorf("ParseFormat(%q) = %v %v", s, f, err)
		}
	}
}

// TestSQLFormat checks that the key-value readers recognize SQL histories
// and refuse them, and ParseFormat and Write.
func TestSQLFormat(t *testing.T) {
	if f, err := format.ParseFormat(" SQL "); f != format.SQL || err != nil {
		t.Errorf("ParseFormat: %v, %v", f, err)
	}
	dir := t.TempDir()
	tests := []struct {
		in   string
		want format.Format
	}{
		{formattest.SQLSample, format.SQL},
		{formattest.SQLSample[strings.Index(formattest.SQLSample, "\n\n")+2:], format.SQL},
		{`{"session": "a", "id": {"x": [1, "}"]}, "level": "SER", "events": []}`, format.SQL},
		{"\n\n" + `{ "init" : [] }`, format.SQL},
		{`{"session": 0, "ops": [["w", "events", 1]]}`, format.JSONL},
		{`{"session": 0, "ops": [["w", "x", 1]], "events": 1}`, format.SQL}, // an error, but SQL's
		{`{"session": "events", "ops": []}`, format.JSONL},
	}
	for i, tt := range tests {
		path := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := format.Detect(path); f != tt.want || err != nil {
			t.Errorf("Detect(%q) = %v, %v; want %v", tt.in, f, err, tt.want)
		}
		if tt.want != format.SQL {
			continue
		}
		_, err := format.ReadFile(path, format.Auto)
		if e := formattest.CheckError(t, err); e.File != path || !strings.Contains(e.Msg, "a SQL history (format sql) is not a key-value history: only isocheck check and explain read one") {
			t.Errorf("ReadFile(Auto): %v", err)
		}
		for _, err := range []error{
			func() error { _, err := format.ReadFile(path, format.SQL); return err }(),
			func() error { _, err := format.Read(strings.NewReader(tt.in), path, format.SQL); return err }(),
		} {
			if err == nil || !strings.Contains(err.Error(), "only isocheck check and explain read one") {
				t.Errorf("reading as SQL: %v", err)
			}
		}
	}
	if err := format.Write(io.Discard, format.EmptyHistory("x"), format.SQL); err == nil || !strings.Contains(err.Error(), "cannot write a key-value history in the sql format") {
		t.Errorf("Write(SQL): %v", err)
	}
}
