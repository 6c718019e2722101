package sqljsonl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/sqlhistory"
)

// A SQL history is JSON lines: lines {"init": [rows]} declare the initial
// rows, before the first transaction; every other line is a transaction
// {"session", "id", "level", "status", "events"}, each event one of
// select, insert, update and delete of a table, with "where" (a predicate
// as package predicate reads it), "rows" and "text". A row has "key" (a
// string, a number or an array of those, whose canonical text is its
// name), "id" (the version written or returned), "read" (the version an
// update or delete matched) and "row" (its content). Unknown and duplicate
// fields are errors.

// Limits of a SQL history against hostile input, besides the length of a
// line (scan.MaxLineLen). Nesting needs no limit of its own: arrays and
// objects are read only where the format has them, so that nothing is
// nested deeper than a line's events, their rows and a row's content.
const (
	// MaxRows caps the rows of one event or init line.
	MaxRows = 1 << 20
	// maxSQLEvents caps the events of one transaction.
	maxSQLEvents = 1 << 20
	// maxSQLTotalRows caps the rows of a history, so that its versions and
	// keys fit their int32 indexes.
	maxSQLTotalRows = math.MaxInt32
)

// Read reads a SQL history (specified in docs/formats.md) from r; name
// is the input's name for messages and History.File. Its errors caused by
// the content of the input are *Error, with the line; those the
// sqlhistory.Builder finds also wrap its *sqlhistory.InputError.
func Read(r io.Reader, name string) (*sqlhistory.History, error) {
	return ReadContext(context.Background(), r, name)
}

// ReadContext is Read, but stops soon after ctx ends, with an error
// wrapping its reason (context.Cause; see progress.Stopped), and reports
// to the progress.Tracker of ctx, if any, as the stage "parse" counting
// bytes, as ReadContext does.
func ReadContext(ctx context.Context, r io.Reader, name string) (*sqlhistory.History, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	size := scan.InputSize(r)
	return readSQLStream(progress.Start(ctx, "parse", max(size, 0), "bytes"), r, name, size)
}

// readSQLStream reads a SQL history from r, an input of size bytes (-1 if
// unknown), as the stage m.
func readSQLStream(m *progress.Meter, r io.Reader, name string, size int64) (*sqlhistory.History, error) {
	sr := scan.NewStopReader(m, r)
	h, err := readSQL(bufio.NewReaderSize(sr, scan.BufSize(size)), name)
	if err != nil {
		return nil, scan.Stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, scan.StopError(name, sr.N, err)
	}
	return h, nil
}

func readSQL(br *bufio.Reader, name string) (*sqlhistory.History, error) {
	lr := scan.NewLineReader(br, name)
	sr := &sqlReader{name: name, b: sqlhistory.NewBuilder(name), ids: map[string]int{}}
	if err := scan.ScanLines(lr, sr.parseLine); err != nil {
		return nil, err
	}
	h, err := sr.b.History()
	if err != nil {
		return nil, sqlInputError(name, err)
	}
	return h, nil
}

// ReadFile reads the SQL history in the file at path, as Read does.
func ReadFile(path string) (*sqlhistory.History, error) {
	return ReadFileContext(context.Background(), path)
}

// ReadFileContext is ReadFile, but stops soon after ctx ends, as
// ReadContext does.
func ReadFileContext(ctx context.Context, path string) (*sqlhistory.History, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, scan.FileError(path, "is a directory, not a SQL history")
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	if err := m.Err(); err != nil {
		return nil, scan.StopError(path, 0, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSQLStream(m, f, path, size)
}

// sqlInputError turns an error of the sqlhistory.Builder into an *Error.
func sqlInputError(name string, err error) error {
	var ie *sqlhistory.InputError
	if !errors.As(err, &ie) {
		return err
	}
	e := &scan.Error{File: name, Line: ie.Line, Msg: ie.Msg, Err: ie}
	if ie.Line == 0 {
		e.Offset = -1
	}
	return e
}

// sqlReader reads the lines of a SQL history.
type sqlReader struct {
	sc   scan.Scanner
	name string
	b    *sqlhistory.Builder
	// txns counts the transactions read, firstTxn is the line of the first.
	txns, firstTxn int
	// ids maps transaction ids to their lines.
	ids  map[string]int
	rows int // rows read so far
}

// sqlRow is a row of an event as read, before it is checked against the
// event's kind.
type sqlRow struct {
	col                    int // column of the row's '{'
	key, id, read          string
	hasKey, hasID, hasRead bool
	row                    predicate.Row // nil if absent
}

func (r *sqlReader) parseLine(line []byte, lineNo int) error {
	r.sc.S, r.sc.I = line, 0
	return scan.AtLine(r.name, lineNo, r.parseTxnLine(lineNo))
}

func (r *sqlReader) parseTxnLine(lineNo int) error {
	p := &r.sc
	var (
		spec                                   = sqlhistory.TxnSpec{Line: lineNo}
		hasInit, hasSession, hasLevel, hasEvts bool
		txnField                               string // a field of a transaction, for messages
		initRows                               []sqlInitRow
	)
	p.Ws()
	if p.Peek() != '{' {
		return p.Errorf("expected a JSON object (a transaction {\"session\": ..., \"level\": ..., \"events\": [...]} or initial rows {\"init\": [...]}), got %s", p.Describe())
	}
	err := r.object("the line", true, func(name string, col int) error {
		if name != "init" && txnField == "" {
			txnField = name
		}
		switch name {
		case "init":
			hasInit = true
			var err error
			initRows, err = r.parseInit()
			return err
		case "session":
			hasSession = true
			s, err := r.sessionName()
			spec.Session = s
			return err
		case "id":
			s, err := r.stringValue(`"id"`)
			spec.Name = s
			return err
		case "level":
			hasLevel = true
			vcol := p.I + 1
			s, err := r.stringValue(`"level"`)
			if err != nil {
				return err
			}
			l, err := level.Parse(s)
			if err != nil {
				return &scan.SyntaxError{Col: vcol, Msg: err.Error()}
			}
			if !sqlhistory.ValidLevel(l) {
				return &scan.SyntaxError{Col: vcol, Msg: fmt.Sprintf("level %v is not one a SQL history's transactions may have (want %v)", l, sqlhistory.Levels())}
			}
			spec.Level = l
			return nil
		case "status":
			vcol := p.I + 1
			s, err := r.stringValue(`"status"`)
			if err != nil {
				return err
			}
			st, ok := history.ParseStatus(s)
			if !ok {
				return &scan.SyntaxError{Col: vcol, Msg: fmt.Sprintf("unknown status %s (want %s)", scan.Quote(s), history.StatusNames())}
			}
			spec.Status = st
			return nil
		case "events":
			hasEvts = true
			return r.array(`"events"`, func(i int) error {
				if i >= maxSQLEvents {
					return p.Errorf("more than %d events in a transaction", maxSQLEvents)
				}
				e, err := r.parseEvent(i)
				if err != nil {
					return err
				}
				spec.Events = append(spec.Events, e)
				return nil
			})
		}
		return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("unknown field %s (want session, id, level, status and events; or init)", scan.Quote(name))}
	})
	if err != nil {
		return err
	}
	p.Ws()
	if p.I < len(p.S) {
		return p.Errorf("unexpected %s after the object (one transaction or list of initial rows per line)", p.Describe())
	}
	if hasInit {
		if txnField != "" {
			return scan.LineError(r.name, lineNo, "a line with \"init\" declares initial rows and has no other field, not %s", scan.Quote(txnField))
		}
		if r.txns > 0 {
			return scan.LineError(r.name, lineNo, "initial rows must come before the first transaction (at %s:%d)", r.name, r.firstTxn)
		}
		for _, ir := range initRows {
			if err := r.b.AddInitial(ir.table, ir.key, ir.id, ir.row, lineNo); err != nil {
				return sqlInputError(r.name, err)
			}
		}
		return nil
	}
	switch {
	case !hasSession:
		return scan.LineError(r.name, lineNo, "missing field \"session\"")
	case !hasLevel:
		return scan.LineError(r.name, lineNo, "missing field \"level\"")
	case !hasEvts:
		return scan.LineError(r.name, lineNo, "missing field \"events\"")
	}
	byDefault := ""
	if spec.Name == "" {
		spec.Name = "T" + strconv.Itoa(r.txns)
		byDefault = " (by default, T and the transaction's index from T0)"
	}
	if other, dup := r.ids[spec.Name]; dup {
		return scan.LineError(r.name, lineNo, "transaction id %s%s is also the id of the transaction at %s:%d", scan.Quote(spec.Name), byDefault, r.name, other)
	}
	r.ids[spec.Name] = lineNo
	if r.txns == 0 {
		r.firstTxn = lineNo
	}
	r.txns++
	if _, err := r.b.AddTxn(spec); err != nil {
		return sqlInputError(r.name, err)
	}
	return nil
}

// sqlInitRow is an initial row as read.
type sqlInitRow struct {
	table, key, id string
	row            predicate.Row
}

// parseInit parses the array of initial rows of an init line.
func (r *sqlReader) parseInit() ([]sqlInitRow, error) {
	p := &r.sc
	var rows []sqlInitRow
	err := r.array(`"init"`, func(i int) error {
		if err := r.countRow(i); err != nil {
			return err
		}
		what := fmt.Sprintf("init[%d]", i)
		col := p.I + 1
		var ir sqlInitRow
		var hasTable, hasKey, hasID bool
		err := r.object(what, true, func(name string, fcol int) error {
			var err error
			switch name {
			case "table":
				hasTable = true
				ir.table, err = r.nonEmptyString(what + `.table`)
			case "key":
				hasKey = true
				ir.key, err = r.parseKey(what + `.key`)
			case "id":
				hasID = true
				ir.id, err = r.nonEmptyString(what + `.id`)
			case "row":
				ir.row, err = r.parseRowContent(what + `.row`)
			default:
				err = &scan.SyntaxError{Col: fcol, Msg: fmt.Sprintf("unknown field %s in %s (want table, key, id and row)", scan.Quote(name), what)}
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, f := range []struct {
			has  bool
			name string
		}{{hasTable, "table"}, {hasKey, "key"}, {hasID, "id"}, {ir.row != nil, "row"}} {
			if !f.has {
				return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s: missing field %q (an initial row has a table, a key, an id naming its version and its content, row)", what, f.name)}
			}
		}
		rows = append(rows, ir)
		return nil
	})
	return rows, err
}

// countRow counts row i of an event or init line against the limits.
func (r *sqlReader) countRow(i int) error {
	if i >= MaxRows {
		return r.sc.Errorf("more than %d rows in one event or init line", MaxRows)
	}
	if r.rows >= maxSQLTotalRows {
		return r.sc.Errorf("more than %d rows in the history", maxSQLTotalRows)
	}
	r.rows++
	return nil
}

// parseEvent parses event i of a transaction.
func (r *sqlReader) parseEvent(i int) (sqlhistory.EventSpec, error) {
	p := &r.sc
	what := fmt.Sprintf("events[%d]", i)
	col := p.I + 1
	var (
		e                 sqlhistory.EventSpec
		kindName          string
		hasWhere, hasRows bool
		whereCol          int
		rows              []sqlRow
	)
	err := r.object(what, true, func(name string, fcol int) error {
		if k, ok := sqlhistory.ParseKind(name); ok {
			if e.Kind != 0 {
				return &scan.SyntaxError{Col: fcol, Msg: fmt.Sprintf("%s has both %s and %s: an event has exactly one of select, insert, update and delete", what, scan.Quote(kindName), scan.Quote(name))}
			}
			e.Kind, kindName = k, name
			var err error
			e.Table, err = r.nonEmptyString(fmt.Sprintf("%s.%s (the table)", what, name))
			return err
		}
		switch name {
		case "where":
			hasWhere = true
			whereCol = p.I + 1
			src, err := r.stringValue(what + ".where")
			if err != nil {
				return err
			}
			e.Where, err = predicate.Parse(src)
			if err != nil {
				var se *predicate.SyntaxError
				if errors.As(err, &se) {
					return &scan.SyntaxError{Col: whereCol, Msg: fmt.Sprintf("%s.where %s: at byte %d of the predicate: %s", what, scan.Quote(src), se.Offset, se.Msg)}
				}
				return &scan.SyntaxError{Col: whereCol, Msg: fmt.Sprintf("%s.where %s: %v", what, scan.Quote(src), err)}
			}
			return nil
		case "rows":
			hasRows = true
			return r.array(what+".rows", func(j int) error {
				if err := r.countRow(j); err != nil {
					return err
				}
				row, err := r.parseRow(fmt.Sprintf("%s.rows[%d]", what, j))
				if err != nil {
					return err
				}
				rows = append(rows, row)
				return nil
			})
		case "text":
			var err error
			e.Text, err = r.stringValue(what + ".text")
			return err
		}
		return &scan.SyntaxError{Col: fcol, Msg: fmt.Sprintf("unknown field %s in %s (want one of select, insert, update and delete, and where, rows and text)", scan.Quote(name), what)}
	})
	if err != nil {
		return e, err
	}
	switch {
	case e.Kind == 0:
		return e, &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s has none of select, insert, update and delete (the kind of the event, whose value is the table)", what)}
	case e.Kind == sqlhistory.Insert && hasWhere:
		return e, &scan.SyntaxError{Col: whereCol, Msg: fmt.Sprintf("%s: an insert has no \"where\"", what)}
	case !hasRows:
		return e, &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("%s: missing field \"rows\" (the rows the event returned, matched or inserted; [] if none)", what)}
	}
	e.Rows = make([]sqlhistory.RowSpec, 0, len(rows))
	for j, row := range rows {
		rs, err := sqlRowSpec(e.Kind, row, fmt.Sprintf("%s.rows[%d]", what, j))
		if err != nil {
			return e, err
		}
		e.Rows = append(e.Rows, rs)
	}
	return e, nil
}

// sqlRowSpec checks a row against the kind of its event, and returns it
// as the Builder takes it.
func sqlRowSpec(k sqlhistory.Kind, row sqlRow, what string) (sqlhistory.RowSpec, error) {
	fail := func(msg string) (sqlhistory.RowSpec, error) {
		return sqlhistory.RowSpec{}, &scan.SyntaxError{Col: row.col, Msg: what + ": " + msg}
	}
	if !row.hasKey {
		return fail(`missing field "key"`)
	}
	rs := sqlhistory.RowSpec{Key: row.key, Row: row.row}
	switch k {
	case sqlhistory.Select:
		switch {
		case !row.hasID:
			return fail(`a select's row needs "id", the version it returned`)
		case row.hasRead:
			return fail(`a select's row names the version it returned with "id"; "read" is for update and delete`)
		}
		rs.Read = row.id
	case sqlhistory.Insert:
		switch {
		case row.hasRead:
			return fail(`an insert reads nothing: its row has no "read"`)
		case !row.hasID:
			return fail(`an insert's row needs "id", the version it wrote`)
		case row.row == nil:
			return fail(`an insert's row needs "row", the content it wrote`)
		}
		rs.Write = row.id
	case sqlhistory.Update:
		switch {
		case !row.hasRead:
			return fail(`an update's row needs "read", the version it matched`)
		case !row.hasID:
			return fail(`an update's row needs "id", the version it wrote`)
		case row.row == nil:
			return fail(`an update's row needs "row", the new content`)
		}
		rs.Read, rs.Write = row.read, row.id
	case sqlhistory.Delete:
		switch {
		case !row.hasRead:
			return fail(`a delete's row needs "read", the version it matched`)
		case row.row != nil:
			return fail(`a delete's row has no "row": it writes no content`)
		}
		rs.Read, rs.Write = row.read, row.id
	}
	return rs, nil
}

// parseRow parses a row of an event.
func (r *sqlReader) parseRow(what string) (sqlRow, error) {
	row := sqlRow{col: r.sc.I + 1}
	err := r.object(what, true, func(name string, fcol int) error {
		var err error
		switch name {
		case "key":
			row.hasKey = true
			row.key, err = r.parseKey(what + ".key")
		case "id":
			row.hasID = true
			row.id, err = r.nonEmptyString(what + ".id")
		case "read":
			row.hasRead = true
			row.read, err = r.nonEmptyString(what + ".read")
		case "row":
			row.row, err = r.parseRowContent(what + ".row")
		default:
			err = &scan.SyntaxError{Col: fcol, Msg: fmt.Sprintf("unknown field %s in %s (want key, id, read and row)", scan.Quote(name), what)}
		}
		return err
	})
	return row, err
}

// parseRowContent parses the content of a row: an object of columns and
// their values.
func (r *sqlReader) parseRowContent(what string) (predicate.Row, error) {
	row := predicate.Row{}
	err := r.object(what, false, func(name string, fcol int) error {
		if _, dup := row[name]; dup {
			return &scan.SyntaxError{Col: fcol, Msg: fmt.Sprintf("duplicate column %s in %s", scan.Quote(name), what)}
		}
		v, err := r.value(what + "." + name)
		row[name] = v
		return err
	})
	return row, err
}

// value parses the value of a column: a string, a number, a boolean or
// null.
func (r *sqlReader) value(what string) (predicate.Value, error) {
	p := &r.sc
	switch c := p.Peek(); {
	case c == '"':
		s, err := p.Str()
		return predicate.String(string(s)), err
	case c == '-' || c >= '0' && c <= '9':
		start := p.I
		text, err := sqlNumber(p)
		if err != nil {
			return predicate.Value{}, err
		}
		v, err := predicate.FromJSON(json.Number(text))
		if err != nil {
			p.I = start
			return v, p.Errorf("%s: number %s out of range (integers go from -2^63 to 2^63-1, and floats are float64s)", scan.Cut(what), scan.Cut(string(text)))
		}
		return v, nil
	case p.Literal("null"):
		return predicate.Null(), nil
	case p.Literal("true"):
		return predicate.Bool(true), nil
	case p.Literal("false"):
		return predicate.Bool(false), nil
	}
	return predicate.Value{}, p.Errorf("%s must be a string, a number, a boolean or null, got %s", scan.Cut(what), p.Describe())
}

// sqlNumber scans a JSON number with p and returns its text.
func sqlNumber(p *scan.Scanner) ([]byte, error) {
	start := p.I
	digits := func() int {
		n := 0
		for p.I < len(p.S) && p.S[p.I] >= '0' && p.S[p.I] <= '9' {
			p.I++
			n++
		}
		return n
	}
	fail := func(msg string) ([]byte, error) {
		text := p.NumberText(start)
		p.I = start
		return nil, p.Errorf("invalid number %s: %s", text, msg)
	}
	p.Eat('-')
	first := p.I
	if digits() == 0 {
		return fail("no digits")
	}
	if p.S[first] == '0' && p.I-first > 1 {
		return fail("leading zero")
	}
	if p.Eat('.') && digits() == 0 {
		return fail("no digits after the decimal point")
	}
	if p.Eat('e') || p.Eat('E') {
		if !p.Eat('+') {
			p.Eat('-')
		}
		if digits() == 0 {
			return fail("no digits in the exponent")
		}
	}
	return p.S[start:p.I], nil
}

// parseKey parses a primary key and returns its canonical text: a string
// as is, a number as written, an array of those as its compact JSON
// encoding.
func (r *sqlReader) parseKey(what string) (string, error) {
	p := &r.sc
	switch c := p.Peek(); {
	case c == '"':
		s, err := p.Str()
		return string(s), err
	case c == '-' || c >= '0' && c <= '9':
		s, err := sqlNumber(p)
		return string(s), err
	case c == '[':
		var b []byte
		err := r.array(what, func(i int) error {
			if i > 0 {
				b = append(b, ',')
			} else {
				b = append(b, '[')
			}
			switch c := p.Peek(); {
			case c == '"':
				s, err := p.Str()
				b = scan.AppendJSONString(b, string(s))
				return err
			case c == '-' || c >= '0' && c <= '9':
				s, err := sqlNumber(p)
				b = append(b, s...)
				return err
			}
			return p.Errorf("%s[%d] must be a string or a number, got %s", scan.Cut(what), i, p.Describe())
		})
		if err == nil && len(b) == 0 {
			return "", p.Errorf("%s is an empty array: a key has at least one column", scan.Cut(what))
		}
		return string(append(b, ']')), err
	}
	return "", p.Errorf("%s must be a string, a number or an array of those, got %s", scan.Cut(what), p.Describe())
}

// sessionName parses a session: a string, or an integer written in
// decimal (so that 1 and "1" are the same session).
func (r *sqlReader) sessionName() (string, error) {
	p := &r.sc
	switch c := p.Peek(); {
	case c == '"':
		s, err := p.Str()
		return string(s), err
	case c == '-' || c >= '0' && c <= '9':
		start := p.I
		n, err := p.Integer()
		if err == scan.ErrBigInt {
			return string(p.S[start:p.I]), nil
		}
		return strconv.FormatInt(n, 10), err
	}
	return "", p.Errorf("\"session\" must be a string or an integer, got %s", p.Describe())
}

// stringValue parses a string.
func (r *sqlReader) stringValue(what string) (string, error) {
	p := &r.sc
	if p.Peek() != '"' {
		return "", p.Errorf("%s must be a string, got %s", scan.Cut(what), p.Describe())
	}
	s, err := p.Str()
	return string(s), err
}

// nonEmptyString parses a string that must not be empty.
func (r *sqlReader) nonEmptyString(what string) (string, error) {
	col := r.sc.I + 1
	s, err := r.stringValue(what)
	if err == nil && s == "" {
		return "", &scan.SyntaxError{Col: col, Msg: scan.Cut(what) + " must not be empty"}
	}
	return s, err
}

// object scans a JSON object, calling field for each field with its name
// and the column of the name, positioned on its value, which field must
// scan. If dups, a name given twice is an error.
func (r *sqlReader) object(what string, dups bool, field func(name string, col int) error) error {
	p := &r.sc
	if !p.Eat('{') {
		return p.Errorf("%s must be an object, got %s", scan.Cut(what), p.Describe())
	}
	var seen []string
	p.Ws()
	if p.Eat('}') {
		return nil
	}
	for {
		p.Ws()
		if p.Peek() != '"' {
			return p.Errorf("expected a field name in %s, got %s", scan.Cut(what), p.Describe())
		}
		col := p.I + 1
		b, err := p.Str()
		if err != nil {
			return err
		}
		name := string(b)
		if dups {
			if slices.Contains(seen, name) {
				return &scan.SyntaxError{Col: col, Msg: fmt.Sprintf("duplicate field %s in %s", scan.Quote(name), scan.Cut(what))}
			}
			seen = append(seen, name)
		}
		p.Ws()
		if !p.Eat(':') {
			return p.Errorf("expected ':' after a field name, got %s", p.Describe())
		}
		p.Ws()
		if err := field(name, col); err != nil {
			return err
		}
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat('}') {
			return nil
		}
		return p.Errorf("expected ',' or '}' in %s, got %s", scan.Cut(what), p.Describe())
	}
}

// array scans a JSON array, calling elem for element i positioned on it.
func (r *sqlReader) array(what string, elem func(i int) error) error {
	p := &r.sc
	if !p.Eat('[') {
		return p.Errorf("%s must be an array, got %s", scan.Cut(what), p.Describe())
	}
	p.Ws()
	if p.Eat(']') {
		return nil
	}
	for i := 0; ; i++ {
		p.Ws()
		if err := elem(i); err != nil {
			return err
		}
		p.Ws()
		if p.Eat(',') {
			continue
		}
		if p.Eat(']') {
			return nil
		}
		return p.Errorf("expected ',' or ']' after %s[%d], got %s", scan.Cut(what), i, p.Describe())
	}
}

// NotKeyValueError is the error of reading a SQL history as a key-value one: detected
// is whether its format was detected, rather than asked for.
func NotKeyValueError(name string, detected bool) error {
	const msg = "a SQL history (format sql) is not a key-value history: only isocheck check and explain read one"
	if detected {
		return scan.FileError(name, "%s", msg)
	}
	return fmt.Errorf("read %s: %s", name, msg)
}
