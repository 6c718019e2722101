package format

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
// line (maxLineLen). Nesting needs no limit of its own: arrays and
// objects are read only where the format has them, so that nothing is
// nested deeper than a line's events, their rows and a row's content.
const (
	// maxSQLRows caps the rows of one event or init line.
	maxSQLRows = 1 << 20
	// maxSQLEvents caps the events of one transaction.
	maxSQLEvents = 1 << 20
	// maxSQLTotalRows caps the rows of a history, so that its versions and
	// keys fit their int32 indexes.
	maxSQLTotalRows = math.MaxInt32
)

// ReadSQL reads a SQL history (specified in docs/formats.md) from r; name
// is the input's name for messages and History.File. Its errors caused by
// the content of the input are *Error, with the line; those the
// sqlhistory.Builder finds also wrap its *sqlhistory.InputError.
func ReadSQL(r io.Reader, name string) (*sqlhistory.History, error) {
	return ReadSQLContext(context.Background(), r, name)
}

// ReadSQLContext is ReadSQL, but stops soon after ctx ends, with an error
// wrapping its reason (context.Cause; see progress.Stopped), and reports
// to the progress.Tracker of ctx, if any, as the stage "parse" counting
// bytes, as ReadContext does.
func ReadSQLContext(ctx context.Context, r io.Reader, name string) (*sqlhistory.History, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	size := inputSize(r)
	return readSQLStream(progress.Start(ctx, "parse", max(size, 0), "bytes"), r, name, size)
}

// readSQLStream reads a SQL history from r, an input of size bytes (-1 if
// unknown), as the stage m.
func readSQLStream(m *progress.Meter, r io.Reader, name string, size int64) (*sqlhistory.History, error) {
	sr := newStopReader(m, r)
	h, err := readSQL(bufio.NewReaderSize(sr, bufSize(size)), name)
	if err != nil {
		return nil, stopped(name, sr, err)
	}
	if err := m.Err(); err != nil {
		return nil, stopError(name, sr.n, err)
	}
	return h, nil
}

func readSQL(br *bufio.Reader, name string) (*sqlhistory.History, error) {
	lr := newLineReader(br, name)
	sr := &sqlReader{name: name, b: sqlhistory.NewBuilder(name), ids: map[string]int{}}
	if err := scanLines(lr, sr.parseLine); err != nil {
		return nil, err
	}
	h, err := sr.b.History()
	if err != nil {
		return nil, sqlInputError(name, err)
	}
	return h, nil
}

// ReadSQLFile reads the SQL history in the file at path, as ReadSQL does.
func ReadSQLFile(path string) (*sqlhistory.History, error) {
	return ReadSQLFileContext(context.Background(), path)
}

// ReadSQLFileContext is ReadSQLFile, but stops soon after ctx ends, as
// ReadSQLContext does.
func ReadSQLFileContext(ctx context.Context, path string) (*sqlhistory.History, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fileError(path, "is a directory, not a SQL history")
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	m := progress.Start(ctx, "parse", max(size, 0), "bytes")
	if err := m.Err(); err != nil {
		return nil, stopError(path, 0, err)
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
	e := &Error{File: name, Line: ie.Line, Msg: ie.Msg, Err: ie}
	if ie.Line == 0 {
		e.Offset = -1
	}
	return e
}

// sqlReader reads the lines of a SQL history.
type sqlReader struct {
	sc   scanner
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
	r.sc.s, r.sc.i = line, 0
	return atLine(r.name, lineNo, r.parseTxnLine(lineNo))
}

func (r *sqlReader) parseTxnLine(lineNo int) error {
	p := &r.sc
	var (
		spec                                   = sqlhistory.TxnSpec{Line: lineNo}
		hasInit, hasSession, hasLevel, hasEvts bool
		txnField                               string // a field of a transaction, for messages
		initRows                               []sqlInitRow
	)
	p.ws()
	if p.peek() != '{' {
		return p.errorf("expected a JSON object (a transaction {\"session\": ..., \"level\": ..., \"events\": [...]} or initial rows {\"init\": [...]}), got %s", p.describe())
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
			vcol := p.i + 1
			s, err := r.stringValue(`"level"`)
			if err != nil {
				return err
			}
			l, err := level.Parse(s)
			if err != nil {
				return &syntaxError{vcol, err.Error()}
			}
			if !sqlhistory.ValidLevel(l) {
				return &syntaxError{vcol, fmt.Sprintf("level %v is not one a SQL history's transactions may have (want %v)", l, sqlhistory.Levels())}
			}
			spec.Level = l
			return nil
		case "status":
			vcol := p.i + 1
			s, err := r.stringValue(`"status"`)
			if err != nil {
				return err
			}
			st, ok := history.ParseStatus(s)
			if !ok {
				return &syntaxError{vcol, fmt.Sprintf("unknown status %s (want %s)", quote(s), history.StatusNames())}
			}
			spec.Status = st
			return nil
		case "events":
			hasEvts = true
			return r.array(`"events"`, func(i int) error {
				if i >= maxSQLEvents {
					return p.errorf("more than %d events in a transaction", maxSQLEvents)
				}
				e, err := r.parseEvent(i)
				if err != nil {
					return err
				}
				spec.Events = append(spec.Events, e)
				return nil
			})
		}
		return &syntaxError{col, fmt.Sprintf("unknown field %s (want session, id, level, status and events; or init)", quote(name))}
	})
	if err != nil {
		return err
	}
	p.ws()
	if p.i < len(p.s) {
		return p.errorf("unexpected %s after the object (one transaction or list of initial rows per line)", p.describe())
	}
	if hasInit {
		if txnField != "" {
			return lineError(r.name, lineNo, "a line with \"init\" declares initial rows and has no other field, not %s", quote(txnField))
		}
		if r.txns > 0 {
			return lineError(r.name, lineNo, "initial rows must come before the first transaction (at %s:%d)", r.name, r.firstTxn)
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
		return lineError(r.name, lineNo, "missing field \"session\"")
	case !hasLevel:
		return lineError(r.name, lineNo, "missing field \"level\"")
	case !hasEvts:
		return lineError(r.name, lineNo, "missing field \"events\"")
	}
	byDefault := ""
	if spec.Name == "" {
		spec.Name = "T" + strconv.Itoa(r.txns)
		byDefault = " (by default, T and the transaction's index from T0)"
	}
	if other, dup := r.ids[spec.Name]; dup {
		return lineError(r.name, lineNo, "transaction id %s%s is also the id of the transaction at %s:%d", quote(spec.Name), byDefault, r.name, other)
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
		col := p.i + 1
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
				err = &syntaxError{fcol, fmt.Sprintf("unknown field %s in %s (want table, key, id and row)", quote(name), what)}
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
				return &syntaxError{col, fmt.Sprintf("%s: missing field %q (an initial row has a table, a key, an id naming its version and its content, row)", what, f.name)}
			}
		}
		rows = append(rows, ir)
		return nil
	})
	return rows, err
}

// countRow counts row i of an event or init line against the limits.
func (r *sqlReader) countRow(i int) error {
	if i >= maxSQLRows {
		return r.sc.errorf("more than %d rows in one event or init line", maxSQLRows)
	}
	if r.rows >= maxSQLTotalRows {
		return r.sc.errorf("more than %d rows in the history", maxSQLTotalRows)
	}
	r.rows++
	return nil
}

// parseEvent parses event i of a transaction.
func (r *sqlReader) parseEvent(i int) (sqlhistory.EventSpec, error) {
	p := &r.sc
	what := fmt.Sprintf("events[%d]", i)
	col := p.i + 1
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
				return &syntaxError{fcol, fmt.Sprintf("%s has both %s and %s: an event has exactly one of select, insert, update and delete", what, quote(kindName), quote(name))}
			}
			e.Kind, kindName = k, name
			var err error
			e.Table, err = r.nonEmptyString(fmt.Sprintf("%s.%s (the table)", what, name))
			return err
		}
		switch name {
		case "where":
			hasWhere = true
			whereCol = p.i + 1
			src, err := r.stringValue(what + ".where")
			if err != nil {
				return err
			}
			e.Where, err = predicate.Parse(src)
			if err != nil {
				var se *predicate.SyntaxError
				if errors.As(err, &se) {
					return &syntaxError{whereCol, fmt.Sprintf("%s.where %s: at byte %d of the predicate: %s", what, quote(src), se.Offset, se.Msg)}
				}
				return &syntaxError{whereCol, fmt.Sprintf("%s.where %s: %v", what, quote(src), err)}
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
		return &syntaxError{fcol, fmt.Sprintf("unknown field %s in %s (want one of select, insert, update and delete, and where, rows and text)", quote(name), what)}
	})
	if err != nil {
		return e, err
	}
	switch {
	case e.Kind == 0:
		return e, &syntaxError{col, fmt.Sprintf("%s has none of select, insert, update and delete (the kind of the event, whose value is the table)", what)}
	case e.Kind == sqlhistory.Insert && hasWhere:
		return e, &syntaxError{whereCol, fmt.Sprintf("%s: an insert has no \"where\"", what)}
	case !hasRows:
		return e, &syntaxError{col, fmt.Sprintf("%s: missing field \"rows\" (the rows the event returned, matched or inserted; [] if none)", what)}
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
		return sqlhistory.RowSpec{}, &syntaxError{row.col, what + ": " + msg}
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
	row := sqlRow{col: r.sc.i + 1}
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
			err = &syntaxError{fcol, fmt.Sprintf("unknown field %s in %s (want key, id, read and row)", quote(name), what)}
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
			return &syntaxError{fcol, fmt.Sprintf("duplicate column %s in %s", quote(name), what)}
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
	switch c := p.peek(); {
	case c == '"':
		s, err := p.str()
		return predicate.String(string(s)), err
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		text, err := sqlNumber(p)
		if err != nil {
			return predicate.Value{}, err
		}
		v, err := predicate.FromJSON(json.Number(text))
		if err != nil {
			p.i = start
			return v, p.errorf("%s: number %s out of range (integers go from -2^63 to 2^63-1, and floats are float64s)", cut(what), cut(string(text)))
		}
		return v, nil
	case p.literal("null"):
		return predicate.Null(), nil
	case p.literal("true"):
		return predicate.Bool(true), nil
	case p.literal("false"):
		return predicate.Bool(false), nil
	}
	return predicate.Value{}, p.errorf("%s must be a string, a number, a boolean or null, got %s", cut(what), p.describe())
}

// sqlNumber scans a JSON number with p and returns its text.
func sqlNumber(p *scanner) ([]byte, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	fail := func(msg string) ([]byte, error) {
		text := p.numberText(start)
		p.i = start
		return nil, p.errorf("invalid number %s: %s", text, msg)
	}
	p.eat('-')
	first := p.i
	if digits() == 0 {
		return fail("no digits")
	}
	if p.s[first] == '0' && p.i-first > 1 {
		return fail("leading zero")
	}
	if p.eat('.') && digits() == 0 {
		return fail("no digits after the decimal point")
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if digits() == 0 {
			return fail("no digits in the exponent")
		}
	}
	return p.s[start:p.i], nil
}

// parseKey parses a primary key and returns its canonical text: a string
// as is, a number as written, an array of those as its compact JSON
// encoding.
func (r *sqlReader) parseKey(what string) (string, error) {
	p := &r.sc
	switch c := p.peek(); {
	case c == '"':
		s, err := p.str()
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
			switch c := p.peek(); {
			case c == '"':
				s, err := p.str()
				b = appendJSONString(b, string(s))
				return err
			case c == '-' || c >= '0' && c <= '9':
				s, err := sqlNumber(p)
				b = append(b, s...)
				return err
			}
			return p.errorf("%s[%d] must be a string or a number, got %s", cut(what), i, p.describe())
		})
		if err == nil && len(b) == 0 {
			return "", p.errorf("%s is an empty array: a key has at least one column", cut(what))
		}
		return string(append(b, ']')), err
	}
	return "", p.errorf("%s must be a string, a number or an array of those, got %s", cut(what), p.describe())
}

// sessionName parses a session: a string, or an integer written in
// decimal (so that 1 and "1" are the same session).
func (r *sqlReader) sessionName() (string, error) {
	p := &r.sc
	switch c := p.peek(); {
	case c == '"':
		s, err := p.str()
		return string(s), err
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		n, err := p.integer()
		if err == errBigInt {
			return string(p.s[start:p.i]), nil
		}
		return strconv.FormatInt(n, 10), err
	}
	return "", p.errorf("\"session\" must be a string or an integer, got %s", p.describe())
}

// stringValue parses a string.
func (r *sqlReader) stringValue(what string) (string, error) {
	p := &r.sc
	if p.peek() != '"' {
		return "", p.errorf("%s must be a string, got %s", cut(what), p.describe())
	}
	s, err := p.str()
	return string(s), err
}

// nonEmptyString parses a string that must not be empty.
func (r *sqlReader) nonEmptyString(what string) (string, error) {
	col := r.sc.i + 1
	s, err := r.stringValue(what)
	if err == nil && s == "" {
		return "", &syntaxError{col, cut(what) + " must not be empty"}
	}
	return s, err
}

// object scans a JSON object, calling field for each field with its name
// and the column of the name, positioned on its value, which field must
// scan. If dups, a name given twice is an error.
func (r *sqlReader) object(what string, dups bool, field func(name string, col int) error) error {
	p := &r.sc
	if !p.eat('{') {
		return p.errorf("%s must be an object, got %s", cut(what), p.describe())
	}
	var seen []string
	p.ws()
	if p.eat('}') {
		return nil
	}
	for {
		p.ws()
		if p.peek() != '"' {
			return p.errorf("expected a field name in %s, got %s", cut(what), p.describe())
		}
		col := p.i + 1
		b, err := p.str()
		if err != nil {
			return err
		}
		name := string(b)
		if dups {
			if slices.Contains(seen, name) {
				return &syntaxError{col, fmt.Sprintf("duplicate field %s in %s", quote(name), cut(what))}
			}
			seen = append(seen, name)
		}
		p.ws()
		if !p.eat(':') {
			return p.errorf("expected ':' after a field name, got %s", p.describe())
		}
		p.ws()
		if err := field(name, col); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return nil
		}
		return p.errorf("expected ',' or '}' in %s, got %s", cut(what), p.describe())
	}
}

// array scans a JSON array, calling elem for element i positioned on it.
func (r *sqlReader) array(what string, elem func(i int) error) error {
	p := &r.sc
	if !p.eat('[') {
		return p.errorf("%s must be an array, got %s", cut(what), p.describe())
	}
	p.ws()
	if p.eat(']') {
		return nil
	}
	for i := 0; ; i++ {
		p.ws()
		if err := elem(i); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return nil
		}
		return p.errorf("expected ',' or ']' after %s[%d], got %s", cut(what), i, p.describe())
	}
}

// errSQL is the error of reading a SQL history as a key-value one: detected
// is whether its format was detected, rather than asked for.
func errSQL(name string, detected bool) error {
	const msg = "a SQL history (format sql) is not a key-value history: only isocheck check and explain read one"
	if detected {
		return fileError(name, "%s", msg)
	}
	return fmt.Errorf("read %s: %s", name, msg)
}
