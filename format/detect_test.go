package format_test

import (
	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
