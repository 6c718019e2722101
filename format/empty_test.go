package format_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// TestReadEmpty reads empty and blank inputs in every format: each is a
// history of no transaction, read without error.
func TestReadEmpty(t *testing.T) {
	inputs := map[string]string{
		"empty":           "",
		"newlines":        "\n\n\n",
		"blanks":          " \t\r\n  \n",
		"byte order mark": "\xEF\xBB\xBF",
		"mark and blanks": "\xEF\xBB\xBF \n\r\n",
		"long blank":      strings.Repeat(" \n", 100<<10),
	}
	formats := []format.Format{format.Auto, format.JSONL, format.Text, format.DBCop}
	for name, in := range inputs {
		for _, f := range formats {
			want := f
			if f == format.Auto {
				want = format.Empty
			}
			h, info, err := format.ReadInfo(strings.NewReader(in), "e", f)
			if err != nil {
				t.Errorf("%s, %s: %v", name, f, err)
				continue
			}
			formattest.CheckConsistent(t, h)
			if len(h.Txns) != 0 || info.Format != want {
				t.Errorf("%s, %s: %d transactions, format %s; want 0 and %s", name, f, len(h.Txns), info.Format, want)
			}
			// The same as a file, and as a Cobra log file.
			for _, file := range []string{"e.in", "T1.log"} {
				path := filepath.Join(t.TempDir(), file)
				if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
					t.Fatal(err)
				}
				fs := []format.Format{f}
				if file == "T1.log" {
					fs = append(fs, format.Cobra)
				}
				for _, f := range fs {
					h, info, err := format.ReadFileInfo(path, f)
					if err != nil {
						t.Errorf("%s, %s, file %s: %v", name, f, file, err)
						continue
					}
					if want := f; len(h.Txns) != 0 || info.Format != want && !(f == format.Auto && info.Format == format.Empty) {
						t.Errorf("%s, %s, file %s: %d transactions, format %s", name, f, file, len(h.Txns), info.Format)
					}
				}
				if got, err := format.Detect(path); err != nil || got != format.Empty {
					t.Errorf("%s: Detect = %s, %v; want empty", name, got, err)
				}
			}
		}
	}
	// A blank prefix longer than the detection window is followed by a
	// history in a text format, or an error in the others.
	long := strings.Repeat("\n", 100<<10)
	h, info, err := format.ReadInfo(strings.NewReader(long+`{"session":1,"ops":[["w",1,1]]}`), "e", format.Auto)
	if err != nil || info.Format != format.JSONL || len(h.Txns) != 1 || h.Txns[0].Pos != 100<<10+1 {
		t.Errorf("blank lines, then JSONL: %v, %+v, %v", info, h, err)
	}
	h, info, err = format.ReadInfo(strings.NewReader(long+"w(1,1,1,1)\n"), "e", format.Auto)
	if err != nil || info.Format != format.Text || len(h.Txns) != 1 {
		t.Errorf("blank lines, then text: %v, %v", info, err)
	}
	// Blank lines of spaces and carriage returns after a byte order mark,
	// then a bad transaction: the error names the input's line.
	bom := "\xEF\xBB\xBF" + strings.Repeat(" \r\n", 50<<10)
	_, err = format.Read(strings.NewReader(bom+`{"session":1,"ops":[["w",1,1]]}`+"\n"+`{"session":1,"ops":[["x",1,1]]}`+"\n"), "e", format.Auto)
	if e := formattest.CheckError(t, err); e.Line != 50<<10+2 {
		t.Errorf("blank lines, then a bad second transaction: %v, want line %d", err, 50<<10+2)
	}
	// One line of spaces longer than the detection window, then JSONL on
	// that same first line.
	h, info, err = format.ReadInfo(strings.NewReader(strings.Repeat(" ", 100<<10)+`{"session":1,"ops":[["w",1,1]]}`), "e", format.Auto)
	if err != nil || info.Format != format.JSONL || len(h.Txns) != 1 || h.Txns[0].Pos != 1 {
		t.Errorf("a long first line of spaces, then JSONL: %v, %+v, %v", info, h, err)
	}
	_, err = format.Read(strings.NewReader(long+"hello"), "e", format.Auto)
	if e := formattest.CheckError(t, err); e.Line != 100<<10+1 || !strings.Contains(e.Msg, "cannot detect the format") {
		t.Errorf("blank lines, then junk: %v", err)
	}
	_, err = format.Read(io.MultiReader(strings.NewReader(strings.Repeat("\n", 2<<20)+"x")), "e", format.DBCop)
	if e := formattest.CheckError(t, err); e.Offset != 2<<20 || !strings.Contains(e.Msg, "not a dbcop file: it starts with 2097152 blank bytes") {
		t.Errorf("blank lines, then a byte, as dbcop: %v", err)
	}
	// A dbcop file may start with a blank byte.
	d := new(formattest.Bin).U64(' ').U64(1, 1, 1, 1).Str("").Str("").Str("").U64(0).B
	if h, err := format.Read(bytes.NewReader(d), "d", format.Auto); err != nil || len(h.Txns) != 0 {
		t.Errorf("dbcop file with id ' ': %v", err)
	}
}

// TestReadEmptyCobra reads Cobra directories of empty logs.
func TestReadEmptyCobra(t *testing.T) {
	for _, logs := range []map[string][]byte{
		{"T1.log": nil},
		{"T1.log": nil, "T2.log": []byte("\n"), "other.txt": []byte("x")},
	} {
		dir := formattest.WriteDir(t, logs)
		for _, f := range []format.Format{format.Auto, format.Cobra} {
			h, info, err := format.ReadFileInfo(dir, f)
			if err != nil {
				t.Errorf("%v, %s: %v", logs, f, err)
				continue
			}
			formattest.CheckConsistent(t, h)
			if len(h.Txns) != 0 || info.Format != format.Cobra {
				t.Errorf("%v, %s: %d transactions, format %s", logs, f, len(h.Txns), info.Format)
			}
		}
	}
	dir := formattest.WriteDir(t, map[string][]byte{"other.txt": nil})
	for _, f := range []format.Format{format.Auto, format.Cobra} {
		if _, err := format.ReadFile(dir, f); err == nil || !strings.Contains(err.Error(), "T*.log") {
			t.Errorf("directory without logs, %s: %v", f, err)
		}
	}
}
