package jepsen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
)

// The values of Jepsen events: the micro-ops of a transaction, keys and
// values, and how messages describe them.

// mops reads the micro-ops of a transaction into r.ops and r.lists;
// writesOnly keeps only its writes and appends.
func (r *jepsenReader) mops(value any, line int, writesOnly bool) error {
	r.ops, r.lists, r.scratch = r.ops[:0], r.lists[:0], r.scratch[:0]
	mops, ok := seqOf(value)
	if !ok {
		if value == nil {
			if writesOnly {
				return nil // an :info or :fail without a value
			}
			return r.errorf(line, ":value of a completed transaction must be a vector of micro-ops, not nil")
		}
		return r.errorf(line, ":value must be a vector of micro-ops like [[:r :x nil] [:append :x 1]], not %s", describeValue(value))
	}
	// Where each list starts in scratch (lists point into it once it is
	// full, as it may move).
	type span struct{ op, from, to int }
	var spans [8]span
	sp := spans[:0]
	for i, m := range mops {
		mop, ok := seqOf(m)
		if !ok || len(mop) != 3 {
			return r.errorf(line, "micro-op %d: want [f key value] like [:r :x nil] or [:append :x 1], not %s", i, describeValue(m))
		}
		f, ok := name(mop[0])
		if !ok {
			return r.errorf(line, "micro-op %d: the function must be :r, :w or :append, not %s", i, describeValue(mop[0]))
		}
		var op history.Op
		switch f {
		case "r":
			op.Kind = history.Read
		case "w", "append":
			op.Kind = history.Write
		default:
			return r.errorf(line, "micro-op %d: unknown function %s (want :r, :w or :append)", i, scan.Quote(f))
		}
		if writesOnly && op.Kind == history.Read {
			continue
		}
		k, err := r.key(mop[1])
		if err != nil {
			return r.errorf(line, "micro-op %d: %v", i, err)
		}
		op.Key = k
		switch {
		case f == "w":
			if err := r.setMode(modeRegister, line); err != nil {
				return err
			}
		case f == "append":
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
		}
		if op.Kind == history.Write {
			if mop[2] == nil {
				return r.errorf(line, "micro-op %d: writes nil", i)
			}
			v, err := r.value(mop[2])
			if err != nil {
				return r.errorf(line, "micro-op %d: %v", i, err)
			}
			op.Value = v
		} else if l, isInts := mop[2].([]int64); isInts {
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
			from := len(r.scratch)
			for j, n := range l {
				if n >= scan.MaxNativeInt || n <= -scan.MaxNativeInt {
					v, err := r.value(n)
					if err != nil {
						return r.errorf(line, "micro-op %d: element %d of the list: %v", i, j, err)
					}
					r.scratch = append(r.scratch, v)
					continue
				}
				r.scratch = append(r.scratch, history.Value(n))
			}
			sp = append(sp, span{len(r.ops), from, len(r.scratch)})
		} else if l, isList := seqOf(mop[2]); isList {
			if err := r.setMode(modeList, line); err != nil {
				return err
			}
			from := len(r.scratch)
			for j, x := range l {
				v, err := r.value(x)
				if err != nil {
					return r.errorf(line, "micro-op %d: element %d of the list: %v", i, j, err)
				}
				r.scratch = append(r.scratch, v)
			}
			sp = append(sp, span{len(r.ops), from, len(r.scratch)})
		} else if mop[2] == nil {
			op.Value = history.Null
		} else {
			if err := r.setMode(modeRegister, line); err != nil {
				return err
			}
			v, err := r.value(mop[2])
			if err != nil {
				return r.errorf(line, "micro-op %d: %v", i, err)
			}
			op.Value = v
		}
		r.ops = append(r.ops, op)
	}
	if r.mode == modeList {
		for len(r.lists) < len(r.ops) {
			r.lists = append(r.lists, nil)
		}
		r.lists = r.lists[:len(r.ops)]
		clear(r.lists)
		for _, s := range sp {
			r.lists[s.op] = r.scratch[s.from:s.to]
		}
	}
	return nil
}

// setMode records the workload a micro-op shows.
func (r *jepsenReader) setMode(m mode, line int) error {
	if r.mode == m {
		return nil
	}
	if r.mode == modeUnknown {
		r.mode, r.modeLine = m, line
		return nil
	}
	was := "rw-register reads and writes"
	if r.mode == modeList {
		was = "list-append appends and list reads"
	}
	return r.errorf(line, "the history mixes rw-register micro-ops and list-append ones: line %d has %s", r.modeLine, was)
}

// maxKeyCache bounds the integer keys looked up in a slice.
const maxKeyCache = 1 << 20

// key interns a key: an integer, a keyword (named with its colon) or a
// string.
func (r *jepsenReader) key(x any) (history.Key, error) {
	switch x := x.(type) {
	case int64:
		// Small keys are looked up in a slice: a map costs more.
		if x >= 0 && x < maxKeyCache {
			if x >= int64(len(r.intKeys)) {
				n := len(r.intKeys)
				r.intKeys = append(r.intKeys, make([]history.Key, max(int(x)+1, 2*n)-n)...)
				for i := n; i < len(r.intKeys); i++ {
					r.intKeys[i] = -1
				}
			}
			if k := r.intKeys[x]; k >= 0 {
				return k, nil
			}
			k := r.b.IntKey(x)
			r.intKeys[x] = k
			return k, nil
		}
		return r.b.IntKey(x), nil
	case edn.Keyword:
		if k, ok := r.keys[x]; ok {
			return k, nil
		}
		k := r.b.Key(":" + string(x))
		r.keys[x] = k
		return k, nil
	case string:
		if k, ok := r.strKeys[x]; ok {
			return k, nil
		}
		k := r.b.Key(x)
		r.strKeys[x] = k
		return k, nil
	case edn.BigInt:
		return r.b.Key(string(x)), nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok {
			if big != "" {
				return r.b.Key(big), nil
			}
			return r.b.IntKey(n), nil
		}
	}
	return 0, fmt.Errorf("a key must be an integer, a keyword or a string, not %s", describeValue(x))
}

// value interns a value: an integer, a keyword (named with its colon) or a
// string. Integers beyond ±(2^62-1) are named by their decimal form (see
// values.go).
func (r *jepsenReader) value(x any) (history.Value, error) {
	switch x := x.(type) {
	case int64:
		if x < scan.MaxNativeInt && x > -scan.MaxNativeInt {
			return history.Value(x), nil
		}
		return r.b.StringValue(strconv.FormatInt(x, 10)), nil
	case edn.Keyword:
		if v, ok := r.kwValues[x]; ok {
			return v, nil
		}
		v := r.b.StringValue(":" + string(x))
		r.kwValues[x] = v
		return v, nil
	case string:
		return r.b.StringValue(x), nil
	case edn.BigInt:
		return r.b.StringValue(string(x)), nil
	case json.Number:
		if n, big, ok := jsonInt(x); ok {
			if big != "" {
				return r.b.StringValue(big), nil
			}
			return r.value(n)
		}
	}
	return 0, fmt.Errorf("a value must be an integer, a keyword or a string, not %s", describeValue(x))
}

// jsonInt reads an integer of JSON: n, or big, the canonical decimal text
// of an integer beyond int64.
func jsonInt(x json.Number) (n int64, bigText string, ok bool) {
	if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
		return n, "", true
	}
	// JSON writes integers without leading zeros: beyond int64, the text
	// is the canonical decimal form already (math/big would take time
	// quadratic in its length to say so).
	s := strings.TrimPrefix(string(x), "-")
	if s == "" || s[0] == '0' {
		return 0, "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, "", false
		}
	}
	return 0, string(x), true
}

// seqOf returns the elements of a vector or list.
func seqOf(x any) ([]any, bool) { return edn.Seq(x) }

// name returns the name of a keyword or a string.
func name(x any) (string, bool) {
	switch x := x.(type) {
	case edn.Keyword:
		return string(x), true
	case string:
		return x, true
	}
	return "", false
}

// describeValue renders a value for a message, cut short when long.
func describeValue(x any) string {
	switch x := x.(type) {
	case nil:
		return "nil"
	case string:
		return scan.Quote(x)
	case edn.Keyword:
		return scan.Cut(x.String())
	case edn.Symbol:
		return scan.Cut(string(x))
	case edn.BigInt:
		return scan.Cut(string(x))
	case json.Number:
		return scan.Cut(string(x))
	case []int64:
		return fmt.Sprintf("a list of %d", len(x))
	case []any, edn.List:
		s, _ := seqOf(x)
		return fmt.Sprintf("a list of %d", len(s))
	case edn.Map, map[string]any:
		return "a map"
	case edn.Set:
		return "a set"
	case edn.Tagged:
		return "#" + scan.Cut(x.Tag) + " " + describeValue(x.Value)
	case edn.Char:
		return scan.Cut(fmt.Sprintf("\\%c", rune(x)))
	}
	return scan.Cut(fmt.Sprint(x))
}

// ednText writes x as EDN, cut to at most max bytes with "…": a fault's
// value as the nemesis logged it ([:isolated {"n1" #{"n2"}}]).
func ednText(x any, max int) string {
	var b strings.Builder
	writeEDN(&b, x, max)
	if b.Len() > max {
		s := b.String()[:max]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "…"
	}
	return b.String()
}

func writeEDN(b *strings.Builder, x any, max int) {
	if b.Len() > max {
		return
	}
	seq := func(open, close string, xs []any) {
		b.WriteString(open)
		for i, e := range xs {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeEDN(b, e, max)
		}
		b.WriteString(close)
	}
	switch x := x.(type) {
	case nil:
		b.WriteString("nil")
	case string:
		b.WriteString(strconv.Quote(x))
	case edn.Keyword:
		b.WriteString(x.String())
	case edn.Symbol:
		b.WriteString(string(x))
	case edn.BigInt:
		b.WriteString(string(x))
	case json.Number:
		b.WriteString(string(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case []int64:
		b.WriteByte('[')
		for i, n := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatInt(n, 10))
		}
		b.WriteByte(']')
	case []any:
		seq("[", "]", x)
	case edn.List:
		seq("(", ")", x)
	case edn.Set:
		seq("#{", "}", x)
	case edn.Map:
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeEDN(b, kv.Key, max)
			b.WriteByte(' ')
			writeEDN(b, kv.Value, max)
		}
		b.WriteByte('}')
	default:
		b.WriteString(describeValue(x))
	}
}
