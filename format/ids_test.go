package format_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// TestDuplicateIDs checks that two transactions with one id are an error
// naming both.
func TestDuplicateIDs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string // "" if the input is valid
	}{
		{"strings", `{"session":1,"id":"a","ops":[]}
{"session":2,"id":"b","ops":[]}
{"session":2,"id":"a","ops":[]}`, 3, `duplicate transaction id "a": the transaction at d.jsonl:1 has it too`},
		{"integer and string", `{"session":1,"id":7,"ops":[]}

{"session":2,"id":"7","ops":[]}`, 3, `duplicate transaction id "7": the transaction at d.jsonl:1 has it too`},
		{"given, then default", `{"session":1,"id":"2","ops":[]}
{"session":1,"ops":[]}`, 2, `transaction id "2" (by default, the line number) is also the id of the transaction at d.jsonl:1`},
		{"default, then given", `{"session":1,"ops":[]}
{"session":1,"id":1,"ops":[]}`, 2, `transaction id "1" is also the id (by default, the line number) of the transaction at d.jsonl:1`},
		{"empty ids mean none", `{"session":1,"id":"","ops":[]}
{"session":1,"id":"","ops":[]}
{"session":1,"id":null,"ops":[]}`, 0, ""},
		{"given ids that are other lines", `{"session":1,"id":"3","ops":[]}
{"session":1,"id":"1","ops":[]}
{"session":1,"id":"2","ops":[]}`, 0, ""},
		{"long id", `{"session":1,"id":"` + strings.Repeat("x", 1000) + `","ops":[]}
{"session":1,"id":"` + strings.Repeat("x", 1000) + `","ops":[]}`, 2, `duplicate transaction id "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (1000 bytes): the transaction at d.jsonl:1 has it too`},
	}
	for _, tt := range tests {
		h, err := format.Read(strings.NewReader(tt.in), "d.jsonl", format.JSONL)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			} else {
				formattest.CheckConsistent(t, h)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.name, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.Line != tt.line || e.Msg != tt.msg {
			t.Errorf("%s:\ngot  %v\nwant d.jsonl:%d: %s", tt.name, err, tt.line, tt.msg)
		}
	}
}

func TestDuplicateCobraIDs(t *testing.T) {
	c := func() *formattest.CobraLog { return new(formattest.CobraLog) }
	tests := []struct {
		name  string
		logs  map[string][]byte
		file  string
		off   int64
		other string
	}{
		{"one log", map[string][]byte{"T1.log": c().S(1).C(1).S(2).C(2).S(1).C(1).B}, "T1.log", 36, "T1.log: byte offset 0"},
		{"two logs", map[string][]byte{"T1.log": c().S(1).C(1).B, "T2.log": c().S(2).C(2).S(1).B}, "T2.log", 18, "T1.log: byte offset 0"},
		{"unfinished", map[string][]byte{"T1.log": c().S(5).C(5).B, "T2.log": c().S(6).W(9, 1, 1).B, "T3.log": c().S(6).B}, "T3.log", 0, "T2.log: byte offset 0"},
	}
	for _, tt := range tests {
		dir := formattest.WriteDir(t, tt.logs)
		_, err := format.ReadFile(dir, format.Cobra)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		e := formattest.CheckError(t, err)
		want := "the transaction at " + filepath.Join(dir, tt.other) + " has it too"
		if e.File != filepath.Join(dir, tt.file) || e.Offset != tt.off || !strings.Contains(e.Msg, "duplicate transaction id") || !strings.Contains(e.Msg, want) {
			t.Errorf("%s: got %v, want %s: byte offset %d: ...%s", tt.name, err, tt.file, tt.off, want)
		}
	}
}
