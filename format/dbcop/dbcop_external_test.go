package dbcop_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/dbcop"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// dbcopFile is a dbcop file as the dbcop tool's History type holds it.
type dbcopFile struct {
	id, nodes, variables, txns, events uint64
	info                               string
	start, end                         time.Time
	sessions                           [][]dbcopTxn
}

type dbcopTxn struct {
	events  []dbcopEvent
	success bool
}

type dbcopEvent struct {
	write, success  bool
	variable, value uint64
}

// decodeDBCopStrict decodes b as the dbcop tool defines its files: the
// bincode 1 encoding (fixed-width little-endian integers, u64 lengths,
// bools 0 or 1, UTF-8 strings) of its serde History
//
//	struct History {
//	    params: HistParams, // id, n_node, n_variable, n_transaction, n_event: usize
//	    info:   String,
//	    start:  DateTime<Local>,
//	    end:    DateTime<Local>,
//	    data:   Vec<Vec<Transaction>>, // Transaction { events: Vec<Event>, success: bool }
//	}                                  // Event { write: bool, variable: usize, value: usize, success: bool }
//
// where chrono encodes a DateTime as the string of its RFC 3339 form, and
// decoding one parses that string. It is independent of readDBCop, which
// is lenient where readers of the format differ (it does not parse the
// times), so that a writer and a reader that agree on a mistake cannot
// hide it. Trailing bytes are an error too: dbcop's files have none.
func decodeDBCopStrict(b []byte) (*dbcopFile, error) {
	d := &strictDecoder{b: b}
	f := &dbcopFile{}
	for _, p := range []*uint64{&f.id, &f.nodes, &f.variables, &f.txns, &f.events} {
		*p = d.u64("a header count")
	}
	f.info = d.string("info")
	f.start = d.time("start")
	f.end = d.time("end")
	nSessions := d.u64("the number of sessions")
	for s := uint64(0); s < nSessions && d.err == nil; s++ {
		var sess []dbcopTxn
		nTxns := d.u64("the number of transactions")
		for t := uint64(0); t < nTxns && d.err == nil; t++ {
			var tx dbcopTxn
			nEvents := d.u64("the number of events")
			for e := uint64(0); e < nEvents && d.err == nil; e++ {
				tx.events = append(tx.events, dbcopEvent{
					write:    d.bool("write"),
					variable: d.u64("variable"),
					value:    d.u64("value"),
					success:  d.bool("an event's success"),
				})
			}
			tx.success = d.bool("a transaction's success")
			sess = append(sess, tx)
		}
		f.sessions = append(f.sessions, sess)
	}
	if d.err == nil && d.off != len(b) {
		d.fail("end of file", fmt.Errorf("%d bytes follow the history", len(b)-d.off))
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// strictDecoder reads the items of a bincode encoding, keeping the first
// error.
type strictDecoder struct {
	b   []byte
	off int
	err error
}

func (d *strictDecoder) fail(what string, err error) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d, %s: %w", d.off, what, err)
	}
}

func (d *strictDecoder) take(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail(what, errors.New("unexpected end of file"))
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *strictDecoder) u64(what string) uint64 {
	if p := d.take(8, what); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *strictDecoder) bool(what string) bool {
	p := d.take(1, what)
	if p == nil {
		return false
	}
	if p[0] > 1 {
		d.fail(what, fmt.Errorf("bool byte %d", p[0]))
	}
	return p[0] == 1
}

func (d *strictDecoder) string(what string) string {
	p := d.take(d.u64(what), what)
	if d.err == nil && !utf8.Valid(p) {
		d.fail(what, errors.New("invalid UTF-8"))
	}
	return string(p)
}

func (d *strictDecoder) time(what string) time.Time {
	s := d.string(what)
	if d.err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.fail(what, fmt.Errorf("not an RFC 3339 time: %w", err))
	}
	return t
}

// TestWriteDBCopStrict checks that what Write writes in dbcop format
// decodes as the dbcop tool defines it: in particular, that the header's
// start and end are times (AWDIT's reader, which decodes dbcop's History
// with bincode and chrono, rejected the empty strings once written).
func TestWriteDBCopStrict(t *testing.T) {
	for name, h := range formattest.DbcopWriteCases(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := format.Write(&buf, h, format.DBCop); err != nil {
				t.Fatal(err)
			}
			f, err := decodeDBCopStrict(buf.Bytes())
			if err != nil {
				t.Fatalf("not a dbcop file: %v", err)
			}
			if f.end.Before(f.start) {
				t.Errorf("end %v is before start %v", f.end, f.start)
			}
			if f.info != "isocheck" {
				t.Errorf("info %q, want %q", f.info, "isocheck")
			}
			if got := uint64(len(f.sessions)); got != f.nodes || got != uint64(len(h.Sessions)) {
				t.Errorf("%d sessions, n_node %d, want %d", got, f.nodes, len(h.Sessions))
			}
			txns := 0
			for s, sess := range f.sessions {
				txns += len(sess)
				if uint64(len(sess)) > f.txns {
					t.Errorf("session %d has %d transactions, more than n_transaction %d", s, len(sess), f.txns)
				}
				for i, tx := range sess {
					if uint64(len(tx.events)) > f.events {
						t.Errorf("transaction %d of session %d has %d events, more than n_event %d", i, s, len(tx.events), f.events)
					}
				}
			}
			if txns != len(h.Txns) {
				t.Errorf("%d transactions, want %d", txns, len(h.Txns))
			}
		})
	}
}

// TestDecodeDBCopStrict checks that the strict decoder rejects what the
// dbcop tool's definition rejects, so that TestWriteDBCopStrict can fail.
func TestDecodeDBCopStrict(t *testing.T) {
	valid := func(start, end string) []byte {
		return new(formattest.Bin).U64(0, 1, 1, 1, 1).Str("db").Str(start).Str(end).
			U64(1, 1, 1).Event(true, 1, 1, true).U8(1).B
	}
	tests := []struct {
		name string
		b    []byte
		msg  string // "" if valid
	}{
		{"chrono's form", valid("2019-04-02T10:59:36.450006139+02:00", "2019-04-02T10:59:41.952+02:00"), ""},
		{"UTC", valid("2022-07-05T04:23:43Z", "2022-07-05T04:23:43Z"), ""},
		{"isocheck's", valid(dbcop.DbcopNoTime, dbcop.DbcopNoTime), ""},
		{"empty times", valid("", ""), "start: not an RFC 3339 time"},
		{"no offset", valid("2019-04-02T10:59:36", dbcop.DbcopNoTime), "start: not an RFC 3339 time"},
		{"bad end", valid(dbcop.DbcopNoTime, "t1"), "end: not an RFC 3339 time"},
		{"bool", new(formattest.Bin).U64(0, 1, 1, 1, 1).Str("").Str(dbcop.DbcopNoTime).Str(dbcop.DbcopNoTime).U64(1, 1, 0).U8(2).B, "bool byte 2"},
		{"short", valid(dbcop.DbcopNoTime, dbcop.DbcopNoTime)[:100], "unexpected end of file"},
		{"trailing", append(valid(dbcop.DbcopNoTime, dbcop.DbcopNoTime), 0), "1 bytes follow"},
	}
	for _, tt := range tests {
		_, err := decodeDBCopStrict(tt.b)
		switch {
		case tt.msg == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)):
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.msg)
		}
	}
}

// TestWriteDBCopExternal runs the reader named by ISOCHECK_DBCOP_READER on
// dbcop files that Write writes: a program that takes file names and exits
// 0 only when it reads them all (for example a build of AWDIT, run as
// "awdit check -f dbcop", through a small wrapper script). It is skipped
// when the variable is not set.
func TestWriteDBCopExternal(t *testing.T) {
	reader := os.Getenv("ISOCHECK_DBCOP_READER")
	if reader == "" {
		t.Skip("ISOCHECK_DBCOP_READER is not set")
	}
	dir := t.TempDir()
	var files []string
	for name, h := range formattest.DbcopWriteCases(t) {
		var buf bytes.Buffer
		if err := format.Write(&buf, h, format.DBCop); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".bincode")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	out, err := exec.Command(reader, files...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s rejects isocheck's dbcop files: %v\n%s", reader, err, out)
	}
	t.Logf("%s:\n%s", reader, out)
}
