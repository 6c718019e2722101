package sqlhistory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
)

// RowSpec is one row of an event as a recorder reports it.
type RowSpec struct {
	// Key is the row's primary key in canonical text.
	Key string
	// Read names the version read: the version a Select returned, or that
	// an Update or Delete matched. Empty for Insert.
	Read string
	// Write names the version written: by Insert and Update always; by
	// Delete optionally (a name is made up if empty). Empty for Select.
	Write string
	// Row is the content written by Insert or Update. For a Select, it is
	// optional: what the read returned, checked against the version
	// written, and the only content of a version nobody wrote.
	Row predicate.Row
}

// EventSpec is one event as a recorder reports it.
type EventSpec struct {
	Kind  Kind
	Table string
	Where *predicate.Expr
	Text  string
	Rows  []RowSpec
}

// TxnSpec is one transaction as a recorder reports it.
type TxnSpec struct {
	Name    string
	Session string
	Level   level.Level
	Status  Status
	Events  []EventSpec
	// Line is the transaction's line in the input, for messages.
	Line int
}

// InputError is a history that is not well formed, with where.
type InputError struct {
	File string
	Line int // 0 if unknown
	Msg  string
}

func (e *InputError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	}
	return e.Msg
}

// A Builder assembles a History from specs in input order; the order of a
// session's transactions is the order they are added in.
type Builder struct {
	h        History
	keys     map[RowKey]KeyID
	sessions map[string]int
	versions map[string]VersionID
	// readRefs are reads to resolve once every version is known.
	readRefs []readRef
	err      error
}

type readRef struct {
	txn, event, slot int
	key              KeyID
	name             string
	row              predicate.Row
	line             int
}

// NewBuilder starts a history read from file (for messages; may be empty).
func NewBuilder(file string) *Builder {
	return &Builder{
		h:        History{File: file, TableKeys: map[string][]KeyID{}, Initial: map[KeyID]VersionID{}},
		keys:     map[RowKey]KeyID{},
		sessions: map[string]int{},
		versions: map[string]VersionID{},
	}
}

func (b *Builder) fail(line int, format string, args ...any) error {
	err := &InputError{File: b.h.File, Line: line, Msg: fmt.Sprintf(format, args...)}
	if b.err == nil {
		b.err = err
	}
	return err
}

func (b *Builder) key(table, key string) KeyID {
	rk := RowKey{table, key}
	if id, ok := b.keys[rk]; ok {
		return id
	}
	id := KeyID(len(b.h.Keys))
	b.h.Keys = append(b.h.Keys, rk)
	b.keys[rk] = id
	b.h.TableKeys[table] = append(b.h.TableKeys[table], id)
	return id
}

func (b *Builder) newVersion(line int, name string, v Version) (VersionID, error) {
	if _, dup := b.versions[name]; dup {
		return 0, b.fail(line, "version %q is written twice: version names must be unique", name)
	}
	v.Name = name
	id := VersionID(len(b.h.Versions))
	b.h.Versions = append(b.h.Versions, v)
	b.versions[name] = id
	return id, nil
}

// AddInitial declares the initial version of a row, written by Init.
// Initial versions come before every transaction that reads them would.
func (b *Builder) AddInitial(table, key, name string, row predicate.Row, line int) error {
	if table == "" || name == "" || row == nil {
		return b.fail(line, "an initial row needs a table, a key, a version name and its content")
	}
	k := b.key(table, key)
	if _, dup := b.h.Initial[k]; dup {
		return b.fail(line, "row %s has two initial versions", RowKey{table, key})
	}
	id, err := b.newVersion(line, name, Version{Key: k, Writer: Init, Event: -1, Row: row})
	if err != nil {
		return err
	}
	b.h.Initial[k] = id
	return nil
}

// AddTxn adds a transaction, and returns its index.
func (b *Builder) AddTxn(spec TxnSpec) (int, error) {
	if !ValidLevel(spec.Level) {
		return 0, b.fail(spec.Line, "transaction %q: level %v is not one a SQL history's transactions may have (SER, SI, PC, CC, RA, RC)", spec.Name, spec.Level)
	}
	s, ok := b.sessions[spec.Session]
	if !ok {
		s = len(b.h.Sessions)
		b.sessions[spec.Session] = s
		b.h.Sessions = append(b.h.Sessions, nil)
		b.h.SessionNames = append(b.h.SessionNames, spec.Session)
	}
	ti := len(b.h.Txns)
	t := Txn{Name: spec.Name, Session: s, Level: spec.Level, Status: spec.Status, Line: spec.Line}
	for ei, es := range spec.Events {
		e, err := b.event(ti, ei, es, spec)
		if err != nil {
			return 0, err
		}
		t.Events = append(t.Events, e)
	}
	b.h.Txns = append(b.h.Txns, t)
	b.h.Sessions[s] = append(b.h.Sessions[s], ti)
	return ti, nil
}

func (b *Builder) event(ti, ei int, es EventSpec, spec TxnSpec) (Event, error) {
	where := func(format string, args ...any) error {
		return b.fail(spec.Line, "transaction %q, event %d (%v): %s", spec.Name, ei+1, es.Kind, fmt.Sprintf(format, args...))
	}
	if es.Table == "" {
		return Event{}, where("no table")
	}
	if es.Kind == Insert && es.Where != nil {
		return Event{}, where("an insert has no predicate")
	}
	e := Event{Kind: es.Kind, Table: es.Table, Where: es.Where, Text: es.Text}
	written := map[KeyID]bool{}
	for _, r := range es.Rows {
		k := b.key(es.Table, r.Key)
		switch es.Kind {
		case Select:
			if r.Read == "" || r.Write != "" {
				return Event{}, where("row %s: a select's row names the version it read, and nothing else", r.Key)
			}
		case Insert:
			if r.Read != "" || r.Write == "" || r.Row == nil {
				return Event{}, where("row %s: an insert's row names the version it wrote and its content", r.Key)
			}
		case Update:
			if r.Read == "" || r.Write == "" || r.Row == nil {
				return Event{}, where("row %s: an update's row names the version it read, the version it wrote and the new content", r.Key)
			}
		case Delete:
			if r.Read == "" || r.Row != nil {
				return Event{}, where("row %s: a delete's row names the version it read and has no content", r.Key)
			}
		default:
			return Event{}, where("unknown kind")
		}
		if es.Kind != Select {
			if written[k] {
				return Event{}, where("row %s is written twice by one statement", r.Key)
			}
			written[k] = true
		}
		if r.Read != "" {
			b.readRefs = append(b.readRefs, readRef{txn: ti, event: ei, slot: len(e.Reads), key: k, name: r.Read, row: r.Row, line: spec.Line})
			e.Reads = append(e.Reads, -1)
			if es.Kind == Update {
				b.readRefs[len(b.readRefs)-1].row = nil // the row is the new content
			}
		}
		if es.Kind != Select {
			name := r.Write
			if name == "" {
				name = fmt.Sprintf("†%s.%d.%s", spec.Name, ei+1, r.Key)
			}
			id, err := b.newVersion(spec.Line, name, Version{Key: k, Writer: ti, Event: ei, Row: r.Row})
			if err != nil {
				return Event{}, err
			}
			e.Writes = append(e.Writes, id)
		}
	}
	return e, nil
}

// History resolves the reads and returns the history, or the first input
// error.
func (b *Builder) History() (*History, error) {
	if b.err != nil {
		return nil, b.err
	}
	for _, ref := range b.readRefs {
		id, ok := b.versions[ref.name]
		if !ok {
			// Read from thin air: a version nobody wrote.
			id = VersionID(len(b.h.Versions))
			b.h.Versions = append(b.h.Versions, Version{Name: ref.name, Key: ref.key, Writer: Unwritten, Event: -1, Row: ref.row})
			b.versions[ref.name] = id
		}
		v := &b.h.Versions[id]
		if v.Key != ref.key {
			return nil, b.fail(ref.line, "transaction %q, event %d: version %q is of row %s, not %s", b.h.Txns[ref.txn].Name, ref.event+1, ref.name, b.h.Keys[v.Key], b.h.Keys[ref.key])
		}
		if ref.row != nil && v.Row != nil {
			for col, val := range ref.row {
				if w, ok := v.Row[col]; !ok || w != val {
					return nil, b.fail(ref.line, "transaction %q, event %d: row %s read as %s = %v, but version %q has %v", b.h.Txns[ref.txn].Name, ref.event+1, b.h.Keys[ref.key], col, val, ref.name, w)
				}
			}
		}
		b.h.Txns[ref.txn].Events[ref.event].Reads[ref.slot] = id
	}
	for _, keys := range b.h.TableKeys {
		slices.Sort(keys)
	}
	return &b.h, nil
}

// RowString prints a row with its columns sorted: {a: 1, b: 'x'}.
func RowString(r predicate.Row) string {
	cols := make([]string, 0, len(r))
	for c := range r {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	var sb strings.Builder
	sb.WriteByte('{')
	for i, c := range cols {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(c)
		sb.WriteString(": ")
		sb.WriteString(r[c].String())
	}
	sb.WriteByte('}')
	return sb.String()
}
