package sqljsonl_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

// dumpSQL renders h canonically, all but its file and lines, with
// transactions named as TxnName names them.
func dumpSQL(h *sqlhistory.History) string {
	var b strings.Builder
	ver := func(id sqlhistory.VersionID) string {
		v := &h.Versions[id]
		row := "deleted"
		if v.Row != nil {
			row = sqlhistory.RowString(v.Row)
		}
		return fmt.Sprintf("v%d %q of %s by %s/%d %s", id, v.Name, h.Keys[v.Key], h.TxnName(v.Writer), v.Event, row)
	}
	for k, rk := range h.Keys {
		fmt.Fprintf(&b, "key %d %q/%q\n", k, rk.Table, rk.Key)
	}
	tables := make([]string, 0, len(h.TableKeys))
	for t := range h.TableKeys {
		tables = append(tables, t)
	}
	slices.Sort(tables)
	for _, t := range tables {
		fmt.Fprintf(&b, "table %q: %v\n", t, h.TableKeys[t])
	}
	for id := range h.Versions {
		b.WriteString(ver(sqlhistory.VersionID(id)))
		b.WriteByte('\n')
	}
	inits := make([]string, 0, len(h.Initial))
	for k, v := range h.Initial {
		inits = append(inits, fmt.Sprintf("init %s = v%d\n", h.Keys[k], v))
	}
	slices.Sort(inits)
	b.WriteString(strings.Join(inits, ""))
	fmt.Fprintf(&b, "sessions %v\n", h.Sessions)
	for i := range h.Txns {
		t := &h.Txns[i]
		fmt.Fprintf(&b, "txn %d %q s%d %v %v\n", i, h.TxnName(i), t.Session, t.Level, t.Status)
		for _, e := range t.Events {
			fmt.Fprintf(&b, "  %v %q where %v text %q reads %v writes %v\n", e.Kind, e.Table, e.Where, e.Text, e.Reads, e.Writes)
		}
	}
	return b.String()
}

// roundTripSQL writes h, reads it back and fails unless it is the same.
func roundTripSQL(t testing.TB, h *sqlhistory.History) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := sqljsonl.Write(&out, h); err != nil {
		t.Fatalf("WriteSQL: %v", err)
	}
	h2, err := sqljsonl.Read(bytes.NewReader(out.Bytes()), "back.jsonl")
	if err != nil {
		t.Fatalf("reading back:\n%s\n%v", out.Bytes(), err)
	}
	if a, b := dumpSQL(h), dumpSQL(h2); a != b {
		t.Fatalf("round trip changed the history:\n%s\nto\n%s\nwritten as\n%s", a, b, out.Bytes())
	}
	return out.Bytes()
}

// sqlSample is a SQL history of every kind of event.
const sqlSample = formattest.SQLSample

func TestReadSQL(t *testing.T) {
	h, err := sqljsonl.Read(strings.NewReader(sqlSample), "sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if h.File != "sample.jsonl" || len(h.Txns) != 3 || len(h.Sessions) != 2 {
		t.Fatalf("file %q, %d transactions, %d sessions", h.File, len(h.Txns), len(h.Sessions))
	}
	t1, t2, t3 := &h.Txns[0], &h.Txns[1], &h.Txns[2]
	if t1.Name != "t1" || t1.Level != level.SER || t1.Status != sqlhistory.Committed || t1.Line != 3 || len(t1.Events) != 4 {
		t.Errorf("t1 = %+v", *t1)
	}
	if t2.Name != "T1" || t2.Level != level.RC || t2.Status != sqlhistory.Unknown || t2.Session != 1 || t2.Line != 4 {
		t.Errorf("t2 = %+v", *t2)
	}
	if t3.Name != "T2" || t3.Level != level.SI || t3.Status != sqlhistory.Aborted || t3.Session != 1 || len(t3.Events) != 0 {
		t.Errorf("t3 = %+v", *t3)
	}
	var got []string
	for _, e := range t1.Events {
		s := fmt.Sprintf("%v %s", e.Kind, e.Table)
		if e.Where != nil {
			s += " " + e.Where.String()
		}
		s += ":"
		for _, v := range e.Reads {
			s += " r " + h.VersionString(v)
		}
		for _, v := range e.Writes {
			s += " w " + h.VersionString(v)
		}
		got = append(got, s)
	}
	want := []string{
		"select kv k = 1 OR v > 3: r kv/1@init-1 {k: 1, v: 0}",
		"insert kv: w kv/2@t1-a {k: 2, v: 5}",
		"update kv v < 3: r kv/1@init-1 {k: 1, v: 0} w kv/1@t1-b {k: 1, v: 3}",
		"delete kv v = 5: r kv/2@t1-a {k: 2, v: 5} w kv/2@†t1.4.2 (deleted)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := t1.Events[3]; e.Text != "DELETE FROM kv WHERE v = 5" {
		t.Errorf("text %q", e.Text)
	}
	sel := t2.Events[0]
	if len(sel.Reads) != 2 || h.VersionString(sel.Reads[1]) != `kv/[1,"a"]@ghost {b: TRUE, f: 1.0, n: NULL, s: 'it''s'}` || h.Versions[sel.Reads[1]].Writer != sqlhistory.Unwritten {
		t.Errorf("ghost read: %s", h.VersionString(sel.Reads[1]))
	}
	if h.Keys[h.Versions[sel.Reads[0]].Key] != (sqlhistory.RowKey{Table: "kv", Key: "1"}) {
		t.Errorf(`key "1" is not key 1`)
	}
	out := roundTripSQL(t, h)
	if !bytes.Contains(out, []byte(`"row":{"b":true,"f":1.0,"n":null,"s":"it's"}`)) {
		t.Errorf("ghost's content not written as read:\n%s", out)
	}
}

func TestReadSQLErrors(t *testing.T) {
	const (
		init1 = `{"init": [{"table": "t", "key": 1, "id": "i1", "row": {"a": 1}}]}` + "\n"
		txn   = `{"session": 0, "level": "SER", "events": []}` + "\n"
	)
	ev := func(events string) string {
		return `{"session": 0, "level": "SER", "events": [` + events + "]}\n"
	}
	tests := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"not an object", "[]", 1, `column 1: expected a JSON object`},
		{"bad JSON", `{"session": 0,`, 1, `column 15: expected a field name in the line, got end of line`},
		{"trailing", txn[:len(txn)-1] + " 5", 1, `column 46: unexpected "5" after the object`},
		{"unknown field", `{"session": 0, "ops": []}`, 1, `column 16: unknown field "ops" (want session, id, level, status and events; or init)`},
		{"duplicate field", `{"session": 0, "session": 1}`, 1, `column 16: duplicate field "session" in the line`},
		{"missing session", `{"level": "SER", "events": []}`, 1, `missing field "session"`},
		{"missing level", `{"session": 0, "events": []}`, 1, `missing field "level"`},
		{"missing events", "\n" + `{"session": 0, "level": "SER"}`, 2, `missing field "events"`},
		{"bad session", `{"session": 1.5, "level": "SER", "events": []}`, 1, `column 13: 1.5 is not an integer`},
		{"null session", `{"session": null, "level": "SER", "events": []}`, 1, `column 13: "session" must be a string or an integer, got "null`},
		{"id not a string", `{"session": 0, "id": 7, "level": "SER", "events": []}`, 1, `column 22: "id" must be a string, got "7`},
		{"unknown level", `{"session": 0, "level": "XYZ", "events": []}`, 1, `column 25: unknown isolation level "XYZ"`},
		{"level not for SQL", `{"session": 0, "level": "SSER", "events": []}`, 1, `column 25: level SSER is not one a SQL history's transactions may have (want [SER SI PC CC RA RC])`},
		{"unknown status", `{"session": 0, "level": "SER", "status": "ok", "events": []}`, 1, `column 42: unknown status "ok" (want committed, aborted, unknown or rolled-back)`},
		{"events not an array", `{"session": 0, "level": "SER", "events": {}}`, 1, `column 42: "events" must be an array, got "{}}"`},
		{"duplicate id", txn + `{"session": 1, "id": "T0", "level": "SER", "events": []}`, 2, `transaction id "T0" is also the id of the transaction at e.jsonl:1`},
		{"duplicate default id", `{"session": 1, "id": "T1", "level": "SER", "events": []}` + "\n" + txn, 2, `transaction id "T1" (by default, T and the transaction's index from T0) is also the id of the transaction at e.jsonl:1`},

		{"init with other fields", `{"init": [], "session": 0}`, 1, `a line with "init" declares initial rows and has no other field, not "session"`},
		{"init after txn", txn + "\n" + init1, 3, `initial rows must come before the first transaction (at e.jsonl:1)`},
		{"init not an array", `{"init": {}}`, 1, `column 10: "init" must be an array, got "{}}"`},
		{"init row missing id", `{"init": [{"table": "t", "key": 1, "row": {}}]}`, 1, `column 11: init[0]: missing field "id"`},
		{"init row unknown field", `{"init": [{"table": "t", "read": "x"}]}`, 1, `column 26: unknown field "read" in init[0] (want table, key, id and row)`},
		{"init empty table", `{"init": [{"table": ""}]}`, 1, `column 21: init[0].table must not be empty`},
		{"init twice", init1 + init1, 2, `row t/1 has two initial versions`},
		{"version twice", init1 + ev(`{"insert": "t", "rows": [{"key": 2, "id": "i1", "row": {}}]}`), 2, `version "i1" is written twice`},

		{"event without kind", ev(`{"rows": []}`), 1, `column 43: events[0] has none of select, insert, update and delete`},
		{"event with two kinds", ev(`{"select": "t", "update": "t", "rows": []}`), 1, `column 59: events[0] has both "select" and "update"`},
		{"event unknown field", ev(`{"select": "t", "rows": [], "returning": 1}`), 1, `column 71: unknown field "returning" in events[0]`},
		{"event duplicate where", ev(`{"select": "t", "where": "a = 1", "where": "a = 2", "rows": []}`), 1, `column 77: duplicate field "where" in events[0]`},
		{"event without rows", txn + ev(`{"select": "t"}`), 2, `column 43: events[0]: missing field "rows"`},
		{"empty table", ev(`{"delete": "", "rows": []}`), 1, `column 54: events[0].delete (the table) must not be empty`},
		{"insert with where", ev(`{"insert": "t", "where": "a = 1", "rows": []}`), 1, `column 68: events[0]: an insert has no "where"`},
		{"bad where", ev(`{"select": "t", "where": "a = = 1", "rows": []}`), 1, `column 68: events[0].where "a = = 1": at byte 4 of the predicate: `},
		{"where not a string", ev(`{"select": "t", "where": null, "rows": []}`), 1, `column 68: events[0].where must be a string, got "null`},
		{"rows not an array", ev(`{"select": "t", "rows": 3}`), 1, `column 67: events[0].rows must be an array, got "3}]}"`},
		{"second event", ev(`{"select": "t", "rows": []}, {"select": "t", "rows": [1]}`), 1, `column 97: events[1].rows[0] must be an object, got "1]}]}"`},

		{"row without key", ev(`{"select": "t", "rows": [{"id": "x"}]}`), 1, `column 68: events[0].rows[0]: missing field "key"`},
		{"row unknown field", ev(`{"select": "t", "rows": [{"key": 1, "value": 2}]}`), 1, `column 79: unknown field "value" in events[0].rows[0] (want key, id, read and row)`},
		{"row duplicate key", ev(`{"select": "t", "rows": [{"key": 1, "key": 2}]}`), 1, `column 79: duplicate field "key" in events[0].rows[0]`},
		{"key object", ev(`{"select": "t", "rows": [{"key": {}}]}`), 1, `column 76: events[0].rows[0].key must be a string, a number or an array of those, got "{}}]}]}"`},
		{"key empty array", ev(`{"select": "t", "rows": [{"key": []}]}`), 1, `column 78: events[0].rows[0].key is an empty array`},
		{"key nested array", ev(`{"select": "t", "rows": [{"key": [1, [2]]}]}`), 1, `column 80: events[0].rows[0].key[1] must be a string or a number, got "[2]]}]}]}"`},
		{"key bad number", ev(`{"select": "t", "rows": [{"key": 01}]}`), 1, `column 76: invalid number 01: leading zero`},
		{"key bad fraction", ev(`{"select": "t", "rows": [{"key": 1.}]}`), 1, `column 76: invalid number 1.: no digits after the decimal point`},
		{"select without id", ev(`{"select": "t", "rows": [{"key": 1}]}`), 1, `column 68: events[0].rows[0]: a select's row needs "id"`},
		{"select with read", ev(`{"select": "t", "rows": [{"key": 1, "id": "x", "read": "y"}]}`), 1, `a select's row names the version it returned with "id"; "read" is for update and delete`},
		{"empty id", ev(`{"select": "t", "rows": [{"key": 1, "id": ""}]}`), 1, `column 85: events[0].rows[0].id must not be empty`},
		{"insert with read", ev(`{"insert": "t", "rows": [{"key": 1, "read": "x", "id": "y", "row": {}}]}`), 1, `an insert reads nothing`},
		{"insert without id", ev(`{"insert": "t", "rows": [{"key": 1, "row": {}}]}`), 1, `an insert's row needs "id"`},
		{"insert without row", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x"}]}`), 1, `an insert's row needs "row"`},
		{"update without read", ev(`{"update": "t", "rows": [{"key": 1, "id": "x", "row": {}}]}`), 1, `an update's row needs "read"`},
		{"update without id", ev(`{"update": "t", "rows": [{"key": 1, "read": "x", "row": {}}]}`), 1, `an update's row needs "id"`},
		{"update without row", ev(`{"update": "t", "rows": [{"key": 1, "read": "x", "id": "y"}]}`), 1, `an update's row needs "row"`},
		{"delete without read", ev(`{"delete": "t", "rows": [{"key": 1}]}`), 1, `a delete's row needs "read"`},
		{"delete with row", ev(`{"delete": "t", "rows": [{"key": 1, "read": "x", "row": {}}]}`), 1, `a delete's row has no "row"`},
		{"row content not an object", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": [1]}]}`), 1, `column 97: events[0].rows[0].row must be an object, got "[1]}]}]}"`},
		{"row column array", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": {"a": [1]}}]}`), 1, `column 103: events[0].rows[0].row.a must be a string, a number, a boolean or null, got "[1]}}]}]}"`},
		{"row duplicate column", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": {"a": 1, "a": 2}}]}`), 1, `column 106: duplicate column "a" in events[0].rows[0].row`},
		{"row integer out of range", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": {"a": 9223372036854775808}}]}`), 1, `column 103: events[0].rows[0].row.a: number 9223372036854775808 out of range`},
		{"row float out of range", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": {"a": -1e400}}]}`), 1, `column 103: events[0].rows[0].row.a: number -1e400 out of range`},
		{"row bad literal", ev(`{"insert": "t", "rows": [{"key": 1, "id": "x", "row": {"a": nul}}]}`), 1, `column 103: events[0].rows[0].row.a must be a string, a number, a boolean or null, got "nul}}]}]}"`},
		{"update of two rows of one key", ev(`{"update": "t", "rows": [{"key": 1, "read": "a", "id": "b", "row": {}}, {"key": "1", "read": "c", "id": "d", "row": {}}]}`), 1, `row 1 is written twice by one statement`},
		{"read of another key", init1 + ev(`{"select": "t", "rows": [{"key": 2, "id": "i1"}]}`), 2, `version "i1" is of row t/1, not t/2`},
		{"read of other content", init1 + ev(`{"select": "t", "rows": [{"key": 1, "id": "i1", "row": {"a": 2}}]}`), 2, `row t/1 read as a = 2, but version "i1" has 1`},
		{"string not UTF-8", ev(`{"select": "t", "rows": [], "text": "` + "\xff" + `"}`), 1, `column 79: string is not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqljsonl.Read(strings.NewReader(tt.in), "e.jsonl")
			if err == nil {
				t.Fatal("no error")
			}
			e := formattest.CheckError(t, err)
			if e.File != "e.jsonl" || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %v\nwant e.jsonl:%d: ...%s...", err, tt.line, tt.msg)
			}
		})
	}
}

// TestReadSQLBuilderError checks that errors the Builder finds wrap its
// InputError.
func TestReadSQLBuilderError(t *testing.T) {
	in := `{"init": [{"table": "t", "key": 1, "id": "v", "row": {}}, {"table": "t", "key": 2, "id": "v", "row": {}}]}`
	_, err := sqljsonl.Read(strings.NewReader(in), "b.jsonl")
	var ie *sqlhistory.InputError
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Errorf("error %v does not wrap an InputError of line 1", err)
	}
	if want := `b.jsonl:1: version "v" is written twice: version names must be unique`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestReadSQLKeys(t *testing.T) {
	in := `{"session": 0, "level": "RC", "events": [{"select": "t", "rows": [` +
		`{"key": 1, "id": "a"}, {"key": "1", "id": "b"}, {"key": 1.0, "id": "c"}, {"key": -2e3, "id": "d"},` +
		`{"key": [1, "x\u0079", 2.5], "id": "e"}, {"key": "[1,\"xy\",2.5]", "id": "f"}, {"key": [ "a\"b" ], "id": "g"}]}]}`
	h, err := sqljsonl.Read(strings.NewReader(in), "k.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range h.Txns[0].Events[0].Reads {
		keys = append(keys, h.Keys[h.Versions[v].Key].Key)
	}
	want := []string{"1", "1", "1.0", "-2e3", `[1,"xy",2.5]`, `[1,"xy",2.5]`, `["a\"b"]`}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if len(h.Keys) != 5 {
		t.Errorf("%d keys, want 5", len(h.Keys))
	}
	roundTripSQL(t, h)
}

func TestReadSQLEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "\xEF\xBB\xBF \r\n"} {
		h, err := sqljsonl.Read(strings.NewReader(in), "empty.jsonl")
		if err != nil || len(h.Txns) != 0 || len(h.Versions) != 0 {
			t.Errorf("%q: %v", in, err)
		}
	}
	h, err := sqljsonl.Read(strings.NewReader("\xEF\xBB\xBF"+`{"session": 0, "level": "SER", "events": []}`), "bom.jsonl")
	if err != nil || len(h.Txns) != 1 {
		t.Errorf("byte order mark: %v", err)
	}
}

// TestReadSQLLimits checks the limits on lines and rows.
func TestReadSQLLimits(t *testing.T) {
	r := io.MultiReader(strings.NewReader("\n{"), io.LimitReader(&formattest.Endless{Line: []byte(strings.Repeat("x", 4096))}, scan.MaxLineLen), strings.NewReader("\n"))
	_, err := sqljsonl.Read(r, "long")
	if e := formattest.CheckError(t, err); e.Line != 2 || !strings.Contains(e.Msg, "line longer than 67108864 bytes (it starts at byte offset 1)") {
		t.Errorf("long line: %v", err)
	}

	var b strings.Builder
	b.WriteString(`{"session": 0, "level": "SER", "events": [{"select": "t", "rows": [`)
	for i := range sqljsonl.MaxRows + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"key":1,"id":"a"}`)
	}
	b.WriteString("]}]}\n")
	_, err = sqljsonl.Read(strings.NewReader(b.String()), "rows")
	if e := formattest.CheckError(t, err); e.Line != 1 || !strings.Contains(e.Msg, "more than 1048576 rows in one event") {
		t.Errorf("many rows: %v", err)
	}

	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := sqljsonl.ReadFile("/dev/zero")
		if e := formattest.CheckError(t, err); e.File != "/dev/zero" || !strings.Contains(e.Msg, "line longer than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := sqljsonl.ReadFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// TestSQLExamples reads the shipped examples and writes them back.
func TestSQLExamples(t *testing.T) {
	paths, err := filepath.Glob("../../examples/sql-*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, path := range paths {
		h, err := sqljsonl.ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if f, err := format.Detect(path); f != format.SQL || err != nil {
			t.Errorf("Detect(%s) = %v, %v", path, f, err)
		}
		roundTripSQL(t, h)
	}
}

// TestWriteSQLErrors checks what WriteSQL cannot write.
func TestWriteSQLErrors(t *testing.T) {
	build := func(row predicate.Row, name string) *sqlhistory.History {
		b := sqlhistory.NewBuilder("")
		if _, err := b.AddTxn(sqlhistory.TxnSpec{Name: name, Session: "0", Level: level.SER, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Insert, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "v", Row: row}}}}}); err != nil {
			t.Fatal(err)
		}
		h, err := b.History()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, tt := range []struct {
		h   *sqlhistory.History
		msg string
	}{
		{build(predicate.Row{"f": predicate.Float(math.NaN())}, "x"), `transaction "x": event 1: column "f": NaN has no JSON form`},
		{build(predicate.Row{"f": predicate.Float(math.Inf(-1))}, "x"), `-Inf has no JSON form`},
		{build(predicate.Row{"s": predicate.String("\xff")}, "x"), `"\xff" is not valid UTF-8`},
		{build(predicate.Row{}, "\xfe"), `"\xfe" is not valid UTF-8`},
	} {
		err := sqljsonl.Write(io.Discard, tt.h)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("got %v, want ...%s...", err, tt.msg)
		}
	}
}

// TestSQLRoundTrip writes random histories and reads them back.
func TestSQLRoundTrip(t *testing.T) {
	for seed := range uint64(300) {
		h := randomSQLHistory(t, rand.New(rand.NewPCG(seed, 3)))
		roundTripSQL(t, h)
	}
}

// randomSQLHistory builds a random SQL history: initial rows, then
// transactions that read versions written (before or after), initial or
// nobody's, with odd keys, names and values.
func randomSQLHistory(t testing.TB, rng *rand.Rand) *sqlhistory.History {
	t.Helper()
	tables := []string{"t", "u", "a \"table\""}
	keys := []string{"1", "-2", "1.0", "x", "", "01", `[1,"a"]`, `[ 1 ]`, "[", "é\n", "†T0.1.1"}
	wheres := []string{"a = 1", "a <> 'x' AND b IS NOT NULL", "NOT (a IN (1, 2.5, 'q')) OR c BETWEEN 1 AND 3", "TRUE", `"odd col" >= -1e3`}
	values := []predicate.Value{predicate.Null(), predicate.Int(0), predicate.Int(-1 << 63), predicate.Float(1), predicate.Float(-0.5),
		predicate.Float(1e300), predicate.Float(1e-7), predicate.String(""), predicate.String("it's \"q\" \u2028\x01"), predicate.Bool(true), predicate.Bool(false)}
	randRow := func() predicate.Row {
		row := predicate.Row{}
		for _, c := range []string{"a", "b", "odd col"} {
			if rng.IntN(3) > 0 {
				row[c] = values[rng.IntN(len(values))]
			}
		}
		return row
	}
	b := sqlhistory.NewBuilder("random")
	type rowKey struct{ table, key string }
	versions := map[rowKey][]string{} // names of versions of each row, written or planned
	contents := map[string]predicate.Row{}
	pick := func() rowKey { return rowKey{tables[rng.IntN(len(tables))], keys[rng.IntN(len(keys))]} }
	nextName := 0
	newName := func() string {
		nextName++
		return "v" + strconv.Itoa(nextName)
	}
	for range rng.IntN(6) {
		k := pick()
		if len(versions[k]) > 0 {
			continue
		}
		name, row := newName(), randRow()
		if err := b.AddInitial(k.table, k.key, name, row, 0); err != nil {
			t.Fatal(err)
		}
		versions[k] = append(versions[k], name)
		contents[name] = row
	}
	// readName names a version of k to read: one written, a ghost
	// (nobody's), or one a later transaction may write (planned).
	planned := map[rowKey][]string{}
	ghosts := map[string]bool{}
	readName := func(k rowKey) string {
		if vs := versions[k]; len(vs) > 0 && rng.IntN(4) > 0 {
			return vs[rng.IntN(len(vs))]
		}
		name := newName()
		if rng.IntN(2) == 0 {
			planned[k] = append(planned[k], name)
		} else {
			versions[k] = append(versions[k], name)
			ghosts[name] = true
		}
		return name
	}
	sessions := []string{"0", "1", "alice", "-7"}
	for ti := range rng.IntN(8) {
		spec := sqlhistory.TxnSpec{Session: sessions[rng.IntN(len(sessions))], Level: sqlhistory.Levels()[rng.IntN(6)],
			Status: sqlhistory.Status(rng.IntN(3))}
		if rng.IntN(3) > 0 {
			spec.Name = "tx" + strconv.Itoa(ti)
		}
		for range rng.IntN(5) {
			e := sqlhistory.EventSpec{Kind: sqlhistory.Kind(1 + rng.IntN(4)), Table: tables[rng.IntN(len(tables))]}
			if e.Kind != sqlhistory.Insert && rng.IntN(2) == 0 {
				e.Where = predicate.MustParse(wheres[rng.IntN(len(wheres))])
			}
			if rng.IntN(3) == 0 {
				e.Text = "STATEMENT \"" + strconv.Itoa(rng.IntN(9)) + "\"\t"
			}
			used := map[string]bool{}
			for range rng.IntN(4) {
				k := rowKey{e.Table, keys[rng.IntN(len(keys))]}
				if e.Kind != sqlhistory.Select && used[k.key] {
					continue
				}
				used[k.key] = true
				r := sqlhistory.RowSpec{Key: k.key}
				if e.Kind != sqlhistory.Insert {
					r.Read = readName(k)
					if c, ok := contents[r.Read]; e.Kind == sqlhistory.Select && ok && rng.IntN(2) == 0 {
						r.Row = c
					}
					if e.Kind == sqlhistory.Select && ghosts[r.Read] && rng.IntN(2) == 0 {
						if contents[r.Read] == nil {
							contents[r.Read] = randRow()
						}
						r.Row = contents[r.Read]
					}
				}
				write := func() string {
					if p := planned[k]; len(p) > 0 && rng.IntN(2) == 0 {
						planned[k] = p[1:]
						return p[0]
					}
					return newName()
				}
				switch e.Kind {
				case sqlhistory.Insert, sqlhistory.Update:
					r.Write, r.Row = write(), randRow()
				case sqlhistory.Delete:
					if rng.IntN(2) == 0 {
						r.Write = write()
					}
				}
				if r.Write != "" {
					versions[k] = append(versions[k], r.Write)
					if r.Row != nil {
						contents[r.Write] = r.Row
					}
				}
				e.Rows = append(e.Rows, r)
			}
			spec.Events = append(spec.Events, e)
		}
		if _, err := b.AddTxn(spec); err != nil {
			t.Fatal(err)
		}
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
