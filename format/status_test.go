package format_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/sqlhistory"
)

// TestRolledBackStatus checks that the status rolled-back reads and
// writes back in the native and SQL formats, and that the formats that
// cannot hold it refuse to write it rather than make it another status.
func TestRolledBackStatus(t *testing.T) {
	const in = `{"session":1,"id":"t1","status":"rolled-back","ops":[["r","x",null],["w","x",1]]}` + "\n"
	h, err := format.Read(strings.NewReader(in), "in", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Txns[0].Status; got != history.RolledBack {
		t.Fatalf("status %v, want rolled-back", got)
	}
	var b bytes.Buffer
	if err := format.Write(&b, h, format.JSONL); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"status":"rolled-back"`) {
		t.Errorf("JSONL writes %q, without the status", b.String())
	}
	for _, f := range []format.Format{format.EDN, format.ElleJSON, format.DBCop, format.Text} {
		if err := format.Write(&bytes.Buffer{}, h, f); err == nil {
			t.Errorf("%s: wrote a rolled-back transaction, want an error", f)
		}
	}

	const sql = `{"session": 0, "level": "SER", "status": "rolled-back", "events": []}` + "\n"
	sh, err := sqljsonl.Read(strings.NewReader(sql), "in")
	if err != nil {
		t.Fatal(err)
	}
	if got := sh.Txns[0].Status; got != sqlhistory.RolledBack {
		t.Fatalf("SQL status %v, want rolled-back", got)
	}
	b.Reset()
	if err := sqljsonl.Write(&b, sh); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"status":"rolled-back"`) {
		t.Errorf("SQL writes %q, without the status", b.String())
	}
}
