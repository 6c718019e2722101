package sqlrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

// ErrAbort is what a transaction's Run returns after Tx.Abort: the
// program chose to roll the transaction back.
var ErrAbort = errors.New("sqlrun: the transaction aborted itself")

// SetExpr is the new value of a column in an Update: a constant (To) or
// the column's old value plus a constant (Add).
type SetExpr struct {
	add bool
	v   predicate.Value
}

// To sets a column to v.
func To(v predicate.Value) SetExpr { return SetExpr{v: v} }

// Add adds v to a column (an Int or Float): col = col + v.
func Add(v predicate.Value) SetExpr { return SetExpr{add: true, v: v} }

// Set says how an Update changes each column it names.
type Set map[string]SetExpr

// table is a declared table with what statements about it need.
type table struct {
	Table
	sql   string // the table's name in the database, quoted
	types map[string]Type
	cols  []string // the declared columns, in order
}

// schema is an App's tables in one database.
type schema struct {
	dialect string
	tables  map[string]*table
}

var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func newSchema(dialect, prefix string, tables []Table) (*schema, error) {
	if dialect != "sqlite" && dialect != "postgres" {
		return nil, fmt.Errorf("sqlrun: unknown SQL dialect %q", dialect)
	}
	s := &schema{dialect: dialect, tables: map[string]*table{}}
	for _, t := range tables {
		if !identRE.MatchString(t.Name) || !identRE.MatchString(prefix+t.Name) && prefix != "" {
			return nil, fmt.Errorf("sqlrun: table name %q: want a lower-case identifier", prefix+t.Name)
		}
		if _, dup := s.tables[t.Name]; dup {
			return nil, fmt.Errorf("sqlrun: table %s declared twice", t.Name)
		}
		tb := &table{Table: t, sql: `"` + prefix + t.Name + `"`, types: map[string]Type{}}
		for _, c := range t.Columns {
			if !identRE.MatchString(c.Name) || c.Name == WID || c.Name == Prev {
				return nil, fmt.Errorf("sqlrun: table %s: column name %q: want a lower-case identifier other than wid and prev", t.Name, c.Name)
			}
			if c.Type < Int || c.Type > Text {
				return nil, fmt.Errorf("sqlrun: table %s: column %s has no type", t.Name, c.Name)
			}
			if _, dup := tb.types[c.Name]; dup {
				return nil, fmt.Errorf("sqlrun: table %s: column %s declared twice", t.Name, c.Name)
			}
			tb.types[c.Name] = c.Type
			tb.cols = append(tb.cols, c.Name)
		}
		if len(t.Key) == 0 {
			return nil, fmt.Errorf("sqlrun: table %s has no primary key", t.Name)
		}
		for _, k := range t.Key {
			if _, ok := tb.types[k]; !ok {
				return nil, fmt.Errorf("sqlrun: table %s: key column %s is not declared", t.Name, k)
			}
		}
		s.tables[t.Name] = tb
	}
	return s, nil
}

func (s *schema) table(name string) (*table, error) {
	t, ok := s.tables[name]
	if !ok {
		return nil, fmt.Errorf("sqlrun: no table %q", name)
	}
	return t, nil
}

func (s *schema) sqlType(t Type) string {
	switch {
	case s.dialect == "postgres" && t == Int:
		return "BIGINT"
	case s.dialect == "postgres" && t == Float:
		return "DOUBLE PRECISION"
	case s.dialect == "postgres":
		// Bytewise order, as predicates compare strings.
		return `TEXT COLLATE "C"`
	case t == Int:
		return "INTEGER"
	case t == Float:
		return "REAL"
	}
	return "TEXT"
}

// create returns the statements that drop and create t.
func (s *schema) create(t *table) []string {
	var cols []string
	for _, c := range t.Columns {
		col := c.Name + " " + s.sqlType(c.Type)
		if slices.Contains(t.Key, c.Name) {
			col += " NOT NULL"
		}
		cols = append(cols, col)
	}
	cols = append(cols, WID+" "+s.sqlType(Text)+" NOT NULL", Prev+" "+s.sqlType(Text))
	return []string{
		"DROP TABLE IF EXISTS " + t.sql,
		fmt.Sprintf("CREATE TABLE %s (%s, PRIMARY KEY (%s))", t.sql, strings.Join(cols, ", "), strings.Join(t.Key, ", ")),
	}
}

// check checks that r's columns are declared and of their types, and that
// its key is not NULL, and returns r with Int values of Float columns
// made Floats and NULLs left out.
func (t *table) check(r predicate.Row) (predicate.Row, error) {
	out := make(predicate.Row, len(r))
	for c, v := range r {
		v, err := t.checkValue(c, v)
		if err != nil {
			return nil, err
		}
		if !v.IsNull() {
			out[c] = v
		}
	}
	for _, k := range t.Key {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("sqlrun: table %s: a row without its key column %s: %s", t.Name, k, sqlhistory.RowString(r))
		}
	}
	return out, nil
}

// checkValue checks that column c is declared and v is of its type, and
// returns v, an Int made a Float for a Float column.
func (t *table) checkValue(c string, v predicate.Value) (predicate.Value, error) {
	typ, ok := t.types[c]
	switch {
	case !ok:
		return v, fmt.Errorf("sqlrun: table %s has no column %q", t.Name, c)
	case v.IsNull():
	case typ == Float && v.Kind() == predicate.IntKind:
		v = predicate.Float(float64(v.JSON().(int64)))
	case typ == Int && v.Kind() != predicate.IntKind,
		typ == Float && v.Kind() != predicate.FloatKind,
		typ == Text && v.Kind() != predicate.StringKind:
		return v, fmt.Errorf("sqlrun: table %s: column %s is of type %v, not %v", t.Name, c, typ, v)
	}
	return v, nil
}

func (t Type) String() string {
	switch t {
	case Int:
		return "Int"
	case Float:
		return "Float"
	case Text:
		return "Text"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// keyText is the canonical text of r's primary key: a single column's
// value as text (an integer's digits, a string itself), several columns'
// values as a JSON array.
func (t *table) keyText(r predicate.Row) string {
	if len(t.Key) == 1 {
		return valueText(r[t.Key[0]])
	}
	vals := make([]any, len(t.Key))
	for i, k := range t.Key {
		vals[i] = r[k].JSON()
	}
	b, err := json.Marshal(vals)
	if err != nil {
		panic(err) // keys are never NaN: the database refuses them
	}
	return string(b)
}

func valueText(v predicate.Value) string {
	if v.Kind() == predicate.StringKind {
		return v.JSON().(string)
	}
	return v.String()
}

// queryRows runs q, a statement returning whole rows of t, and returns
// them with their versions' write ids and previous write ids.
func (tx *Tx) queryRows(t *table, q string) (rows []predicate.Row, wids, prevs []string, err error) {
	res, err := tx.query(q)
	if err != nil {
		return nil, nil, nil, err
	}
	if rows, wids, prevs, err = t.fromSQL(res); err != nil {
		return nil, nil, nil, tx.fail(err)
	}
	return rows, wids, prevs, nil
}

// fromSQL converts the rows a statement returned to predicate Rows of
// t's declared columns (NULLs left out) and their hidden columns.
func (t *table) fromSQL(res *db.SQLRows) (rows []predicate.Row, wids, prevs []string, err error) {
	for _, vals := range res.Rows {
		r := predicate.Row{}
		var wid, prev string
		for i, col := range res.Columns {
			col = strings.ToLower(col)
			x := vals[i]
			if col == WID || col == Prev {
				var s string
				switch x := x.(type) {
				case nil:
				case string:
					s = x
				case []byte:
					s = string(x)
				default:
					return nil, nil, nil, fmt.Errorf("sqlrun: table %s: column %s holds a %T", t.Name, col, x)
				}
				if col == WID {
					wid = s
				} else {
					prev = s
				}
				continue
			}
			typ, ok := t.types[col]
			if !ok {
				return nil, nil, nil, fmt.Errorf("sqlrun: table %s: the database returned an undeclared column %q", t.Name, col)
			}
			v, err := convert(typ, x)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("sqlrun: table %s: column %s: %w", t.Name, col, err)
			}
			if !v.IsNull() {
				r[col] = v
			}
		}
		if wid == "" {
			return nil, nil, nil, fmt.Errorf("sqlrun: table %s: a row without a write id: %s", t.Name, sqlhistory.RowString(r))
		}
		rows = append(rows, r)
		wids = append(wids, wid)
		prevs = append(prevs, prev)
	}
	return rows, wids, prevs, nil
}

// convert converts a driver's value to a Value of type typ.
func convert(typ Type, x any) (predicate.Value, error) {
	if x == nil {
		return predicate.Null(), nil
	}
	var i int64
	isInt := true
	switch x := x.(type) {
	case int64:
		i = x
	case int32:
		i = int64(x)
	case int16:
		i = int64(x)
	case int8:
		i = int64(x)
	case int:
		i = int64(x)
	default:
		isInt = false
	}
	switch typ {
	case Int:
		if isInt {
			return predicate.Int(i), nil
		}
		if f, ok := x.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return predicate.Int(int64(f)), nil
		}
	case Float:
		if isInt {
			return predicate.Float(float64(i)), nil
		}
		if f, ok := x.(float64); ok {
			return predicate.Float(f), nil
		}
		if f, ok := x.(float32); ok {
			return predicate.Float(float64(f)), nil
		}
	case Text:
		switch x := x.(type) {
		case string:
			return predicate.String(x), nil
		case []byte:
			return predicate.String(string(x)), nil
		}
	}
	return predicate.Value{}, fmt.Errorf("a %T (%v) is not of type %v", x, x, typ)
}

// Tx is a transaction in progress: a recording handle on a database
// transaction. Each method sends one statement and records it as an event
// of the history. A method's error ends the transaction: Run returns it.
type Tx struct {
	ctx     context.Context
	s       *schema
	t       db.SQLTxn
	sess    *session
	index   int
	level   level.Level
	n       int // statements sent
	events  []sqlhistory.EventSpec
	err     error // the first error of a method
	aborted bool  // Abort was called
}

// Session returns the index of the transaction's session (from 0).
func (tx *Tx) Session() int { return tx.sess.id }

// Index returns the transaction's index in its session (from 0).
func (tx *Tx) Index() int { return tx.index }

// Level returns the level the transaction was begun at.
func (tx *Tx) Level() level.Level { return tx.level }

// NewID returns an integer no other call of the run returns, for a new
// row's key: 1000000 × (session + 1) plus a counter of the session's.
func (tx *Tx) NewID() int64 {
	tx.sess.ids++
	return int64(tx.sess.id+1)*1_000_000 + tx.sess.ids
}

// Abort ends the transaction by the program's choice: it is rolled back
// and recorded as aborted, with its events so far. Run should return the
// ErrAbort it returns.
func (tx *Tx) Abort() error {
	tx.aborted = true
	if tx.err == nil {
		tx.err = ErrAbort
	}
	return ErrAbort
}

// wid returns the name of the version that statement n writes of the row
// with key text key.
func (tx *Tx) wid(key string) string {
	return fmt.Sprintf("%d.%d.%d/%s", tx.sess.id, tx.index, tx.n, key)
}

// query sends a statement, remembering its error.
func (tx *Tx) query(q string) (*db.SQLRows, error) {
	if tx.err != nil {
		return nil, tx.err
	}
	tx.n++
	res, err := tx.t.Query(tx.ctx, q)
	if err != nil {
		tx.err = err
		return nil, err
	}
	return res, nil
}

func (tx *Tx) fail(err error) error {
	if tx.err == nil {
		tx.err = err
	}
	return err
}

func whereClause(where *predicate.Expr) string {
	if where == nil {
		return ""
	}
	return " WHERE " + where.String()
}

// Select returns the rows of table that satisfy where (nil: every row):
// SELECT * FROM table WHERE where.
func (tx *Tx) Select(table string, where *predicate.Expr) ([]predicate.Row, error) {
	if tx.err != nil {
		return nil, tx.err
	}
	t, err := tx.s.table(table)
	if err != nil {
		return nil, tx.fail(err)
	}
	q := "SELECT * FROM " + t.sql + whereClause(where)
	rows, wids, _, err := tx.queryRows(t, q)
	if err != nil {
		return nil, err
	}
	ev := sqlhistory.EventSpec{Kind: sqlhistory.Select, Table: table, Where: where, Text: q}
	for i, r := range rows {
		ev.Rows = append(ev.Rows, sqlhistory.RowSpec{Key: t.keyText(r), Read: wids[i], Row: r})
	}
	tx.events = append(tx.events, ev)
	return rows, nil
}

// Insert inserts rows into table, or replaces the rows of the same keys
// (INSERT ... ON CONFLICT (key) DO UPDATE). A column a row leaves out is
// NULL.
func (tx *Tx) Insert(table string, rows ...predicate.Row) error {
	if tx.err != nil {
		return tx.err
	}
	t, err := tx.s.table(table)
	if err != nil {
		return tx.fail(err)
	}
	if len(rows) == 0 {
		return nil
	}
	ev := sqlhistory.EventSpec{Kind: sqlhistory.Insert, Table: table}
	n := tx.n + 1
	var values []string
	for _, r := range rows {
		r, err := t.check(r)
		if err != nil {
			return tx.fail(err)
		}
		key := t.keyText(r)
		wid := fmt.Sprintf("%d.%d.%d/%s", tx.sess.id, tx.index, n, key)
		values = append(values, t.values(r, wid))
		ev.Rows = append(ev.Rows, sqlhistory.RowSpec{Key: key, Write: wid, Row: r})
	}
	q := t.insert(values)
	if _, err := tx.query(q); err != nil {
		return err
	}
	ev.Text = q
	tx.events = append(tx.events, ev)
	return nil
}

// values returns the VALUES tuple of row r with write id wid.
func (t *table) values(r predicate.Row, wid string) string {
	var vals []string
	for _, c := range t.cols {
		vals = append(vals, r[c].String())
	}
	vals = append(vals, predicate.String(wid).String(), "NULL")
	return "(" + strings.Join(vals, ", ") + ")"
}

// insert returns the upsert of tuples.
func (t *table) insert(tuples []string) string {
	var set []string
	for _, c := range t.cols {
		if !slices.Contains(t.Key, c) {
			set = append(set, c+" = excluded."+c)
		}
	}
	set = append(set, WID+" = excluded."+WID, Prev+" = "+t.sql+"."+WID)
	return fmt.Sprintf("INSERT INTO %s (%s, %s, %s) VALUES %s ON CONFLICT (%s) DO UPDATE SET %s",
		t.sql, strings.Join(t.cols, ", "), WID, Prev, strings.Join(tuples, ", "),
		strings.Join(t.Key, ", "), strings.Join(set, ", "))
}

// Update changes the rows of table that satisfy where as set says, and
// returns their new contents: UPDATE table SET ... WHERE where RETURNING *.
// The new values are computed by the database from the old row.
func (tx *Tx) Update(table string, where *predicate.Expr, set Set) ([]predicate.Row, error) {
	if tx.err != nil {
		return nil, tx.err
	}
	t, err := tx.s.table(table)
	if err != nil {
		return nil, tx.fail(err)
	}
	if len(set) == 0 {
		return nil, tx.fail(fmt.Errorf("sqlrun: update of %s sets nothing", table))
	}
	cols := make([]string, 0, len(set))
	for c := range set {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	var assign []string
	for _, c := range cols {
		e := set[c]
		typ, ok := t.types[c]
		switch {
		case !ok:
			return nil, tx.fail(fmt.Errorf("sqlrun: update of %s: no column %q", table, c))
		case slices.Contains(t.Key, c):
			return nil, tx.fail(fmt.Errorf("sqlrun: update of %s: key column %s cannot change", table, c))
		case e.add && (typ == Text || e.v.Kind() != predicate.IntKind && e.v.Kind() != predicate.FloatKind):
			return nil, tx.fail(fmt.Errorf("sqlrun: update of %s: cannot add %v to column %s of type %v", table, e.v, c, typ))
		case e.add:
			assign = append(assign, c+" = "+c+" + "+e.v.String())
		default:
			v, err := t.checkValue(c, e.v)
			if err != nil {
				return nil, tx.fail(err)
			}
			assign = append(assign, c+" = "+v.String())
		}
	}
	// The new version's name: the statement's prefix and the row's key.
	n := tx.n + 1
	prefix := predicate.String(fmt.Sprintf("%d.%d.%d/", tx.sess.id, tx.index, n)).String()
	assign = append(assign, WID+" = "+prefix+" || "+t.keyExpr(), Prev+" = "+WID)
	q := fmt.Sprintf("UPDATE %s SET %s%s RETURNING *", t.sql, strings.Join(assign, ", "), whereClause(where))
	rows, wids, prevs, err := tx.queryRows(t, q)
	if err != nil {
		return nil, err
	}
	ev := sqlhistory.EventSpec{Kind: sqlhistory.Update, Table: table, Where: where, Text: q}
	for i, r := range rows {
		ev.Rows = append(ev.Rows, sqlhistory.RowSpec{Key: t.keyText(r), Read: prevs[i], Write: wids[i], Row: r})
	}
	tx.events = append(tx.events, ev)
	return rows, nil
}

// keyExpr is an SQL expression of a row's key text, as keyText writes it
// for integer keys (for other keys it is unique but may differ).
func (t *table) keyExpr() string {
	var parts []string
	for _, k := range t.Key {
		parts = append(parts, "CAST("+k+" AS TEXT)")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "'[' || " + strings.Join(parts, " || ',' || ") + " || ']'"
}

// Delete deletes the rows of table that satisfy where and returns their
// contents: DELETE FROM table WHERE where RETURNING *.
func (tx *Tx) Delete(table string, where *predicate.Expr) ([]predicate.Row, error) {
	if tx.err != nil {
		return nil, tx.err
	}
	t, err := tx.s.table(table)
	if err != nil {
		return nil, tx.fail(err)
	}
	q := "DELETE FROM " + t.sql + whereClause(where) + " RETURNING *"
	rows, wids, _, err := tx.queryRows(t, q)
	if err != nil {
		return nil, err
	}
	ev := sqlhistory.EventSpec{Kind: sqlhistory.Delete, Table: table, Where: where, Text: q}
	for i, r := range rows {
		key := t.keyText(r)
		ev.Rows = append(ev.Rows, sqlhistory.RowSpec{Key: key, Read: wids[i], Write: tx.wid(key)})
	}
	tx.events = append(tx.events, ev)
	return rows, nil
}
