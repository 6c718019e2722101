package formattest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/cobra"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// AddCorpusSeed adds the first max bytes of a corpus file as a seed, if the
// corpus is present.
func AddCorpusSeed(f *testing.F, max int, elem ...string) {
	data, err := os.ReadFile(filepath.Join(append([]string{CorpusDir}, elem...)...))
	if err != nil {
		return
	}
	if len(data) > max {
		data = data[:max]
	}
	f.Add(data)
}

// BenchHistory builds a native history of txns transactions of ops
// operations each over 16 sessions and 10,000 keys, half of them named by
// strings.
func BenchHistory(txns, ops int) *history.History {
	b := history.NewBuilder(history.Null, "bench")
	buf := make([]history.Op, ops)
	next := history.Value(1)
	for t := 0; t < txns; t++ {
		for i := range buf {
			k := (t*7919 + i*104729) % 10000
			var key history.Key
			if k%2 == 0 {
				key = b.IntKey(int64(k))
			} else {
				key = b.Key("key" + strconv.Itoa(k))
			}
			if i%2 == 0 {
				buf[i] = history.Op{Kind: history.Read, Key: key, Value: next - history.Value(k) - 1}
				if k%5 == 0 {
					buf[i].Value = history.Null
				}
			} else {
				buf[i] = history.Op{Kind: history.Write, Key: key, Value: next}
				next++
			}
		}
		b.AddTxn(history.Txn{
			ID:      "t" + strconv.Itoa(t),
			Session: b.IntSession(int64(t % 16)),
			Start:   int64(t * 10),
			End:     int64(t*10 + 5),
		}, buf)
	}
	return b.History()
}

// SmallDBCop is a dbcop history with a failed event, an empty aborted
// transaction and a value above MaxInt64.
func SmallDBCop() []byte {
	e := new(Bin).Header(2, 3, 2, 3).U64(2)
	e.U64(2)                                                                                  // session 0: 2 transactions
	e.U64(3).Event(true, 1, 5, true).Event(false, 2, 0, true).Event(false, 1, 7, false).U8(1) // at 88
	e.U64(0).U8(0)                                                                            // at 151
	e.U64(1)                                                                                  // session 1: 1 transaction
	e.U64(2).Event(false, 1, 5, true).Event(true, 3, math.MaxUint64, true).U8(0)              // at 168
	return e.B
}

// SameButIDs reports whether a and b have the same contents apart from
// transaction ids and positions, in session order.
func SameButIDs(a, b *history.History) bool {
	if len(a.Sessions) != len(b.Sessions) || a.Init != b.Init {
		return false
	}
	for s := range a.Sessions {
		if len(a.Sessions[s]) != len(b.Sessions[s]) {
			return false
		}
		for i := range a.Sessions[s] {
			ta, tb := int(a.Sessions[s][i]), int(b.Sessions[s][i])
			if a.Txns[ta].Status != b.Txns[tb].Status {
				return false
			}
			oa, ob := a.OpsOf(ta), b.OpsOf(tb)
			if len(oa) != len(ob) {
				return false
			}
			for j := range oa {
				if oa[j].Kind != ob[j].Kind || oa[j].Value != ob[j].Value || a.FormatKey(oa[j].Key) != b.FormatKey(ob[j].Key) {
					return false
				}
			}
		}
	}
	return true
}

// Endless repeats line forever.
type Endless struct {
	Line []byte
	off  int
}

func (e *Endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.Line[e.off:])
		n += c
		e.off = (e.off + c) % len(e.Line)
	}
	return n, nil
}

// CheckStopped checks that err reports a stop from outside, not bad input.
func CheckStopped(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error, want a stop")
	}
	if !progress.Stopped(err) {
		t.Fatalf("progress.Stopped(%v) is false", err)
	}
	var e *scan.Error
	if errors.As(err, &e) {
		t.Fatalf("a stop is reported as an input error: %v", err)
	}
}

// Jdump is dump with, after each read of a list history, the list it
// returned.
func Jdump(h *history.History, withPos bool) string {
	if !h.Lists {
		return Dump(h, withPos)
	}
	lines := strings.Split(Dump(h, withPos), "\n")
	first := 1 + len(h.Sessions) // the line of transaction 0
	for t := range h.Txns {
		tx := &h.Txns[t]
		head, _, _ := strings.Cut(lines[first+t], ": ")
		var sb strings.Builder
		sb.WriteString(head)
		sb.WriteString(":")
		for i, op := range h.OpsOf(t) {
			fmt.Fprintf(&sb, " %v(%s,%s)", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
			if op.Kind == history.Read {
				sb.WriteString("[")
				for j, v := range h.ListOf(tx.OpStart + int32(i)) {
					if j > 0 {
						sb.WriteString(" ")
					}
					sb.WriteString(h.FormatValue(v))
				}
				sb.WriteString("]")
			}
		}
		lines[first+t] = sb.String()
	}
	return strings.Join(lines, "\n")
}

// KeyValueExamples drops the SQL histories (examples/sql-*.jsonl) from
// paths, leaving the key-value ones.
func KeyValueExamples(paths []string) []string {
	return slices.DeleteFunc(paths, func(p string) bool {
		f, err := format.Detect(p)
		return err == nil && f == format.SQL
	})
}

// DbcopWriteCases are histories to write in dbcop format: an example, one
// read from a dbcop file, an empty one, and one whose keys and values are
// named and whose transactions are aborted or empty.
func DbcopWriteCases(t *testing.T) map[string]*history.History {
	t.Helper()
	ws, err := format.ReadFile(filepath.Join(repoRoot(), "examples", "write-skew.jsonl"), format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	small, err := format.Read(bytes.NewReader(SmallDBCop()), "d.bincode", format.DBCop)
	if err != nil {
		t.Fatal(err)
	}
	b := history.NewBuilder(history.Null)
	s := b.Session("alice")
	b.AddTxn(history.Txn{ID: "w", Session: s, Status: history.Committed}, []history.Op{
		{Kind: history.Write, Key: b.Key("k\"ey"), Value: b.StringValue("a\nb")},
	})
	b.AddTxn(history.Txn{ID: "a", Session: s, Status: history.Aborted}, nil)
	b.AddTxn(history.Txn{ID: "r", Session: b.Session("bob"), Status: history.Committed}, []history.Op{
		{Kind: history.Read, Key: b.Key("k\"ey"), Value: b.StringValue("a\nb")},
	})
	return map[string]*history.History{
		"write-skew": ws,
		"small":      small,
		"empty":      history.NewBuilder(0).History(),
		"named":      b.History(),
	}
}

// RandomHistory builds a random native history.
func RandomHistory(rng *rand.Rand, txns, ops int) *history.History {
	b := history.NewBuilder(history.Null, "random")
	var buf []history.Op
	for i := 0; i < txns; i++ {
		var s int32
		if rng.IntN(2) == 0 {
			s = b.IntSession(int64(rng.IntN(5)))
		} else {
			s = b.Session("s" + strconv.Itoa(rng.IntN(5)))
		}
		buf = buf[:0]
		for j := rng.IntN(ops + 1); j > 0; j-- {
			var op history.Op
			if rng.IntN(2) == 0 {
				op.Key = b.IntKey(rng.Int64N(100) - 50)
			} else {
				op.Key = b.Key("k\"\\é" + strconv.Itoa(rng.IntN(100)))
			}
			switch rng.IntN(4) {
			case 0:
				op.Value = history.Value(rng.Int64N(1<<62) - 1<<61)
			case 1:
				op.Value = b.StringValue("v\n" + strconv.Itoa(rng.IntN(1000)))
			case 2:
				op.Value = history.Null
			default:
				op.Value = history.Value(rng.IntN(10))
			}
			if op.Value != history.Null && rng.IntN(2) == 0 {
				op.Kind = history.Write
			}
			buf = append(buf, op)
		}
		tx := history.Txn{ID: "t" + strconv.Itoa(i), Session: s, Status: history.Status(rng.IntN(3)), Start: history.NoTime, End: history.NoTime}
		if rng.IntN(2) == 0 {
			tx.Start = rng.Int64N(1000) - 500
			tx.End = tx.Start + rng.Int64N(100)
		}
		b.AddTxn(tx, buf)
	}
	return b.History()
}

// DumpLists renders what dump leaves out of a history of lists: the lists
// read and the stated version orders.
func DumpLists(h *history.History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lists %v\n", h.Lists)
	for _, lr := range h.ListReads {
		fmt.Fprintf(&b, "op %d reads", lr.Op)
		for _, v := range lr.Values {
			fmt.Fprintf(&b, " %s", h.FormatValue(v))
		}
		b.WriteByte('\n')
	}
	for _, o := range h.Orders {
		fmt.Fprintf(&b, "order %s:", h.FormatKey(o.Key))
		for _, v := range o.Values {
			fmt.Fprintf(&b, " %s", h.FormatValue(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ReadCobraBytes reads one Cobra log as a one-session history.
func ReadCobraBytes(data []byte) (*history.History, error) {
	return cobra.ReadLog(bufio.NewReader(bytes.NewReader(data)), "T1.log")
}

// SQLSample is a SQL history of every kind of event.
const SQLSample = `{"init": [{"table": "kv", "key": 1, "id": "init-1", "row": {"k": 1, "v": 0}}]}

{"session": 0, "id": "t1", "level": "SER", "status": "committed", "events": [{"select": "kv", "where": "k = 1 OR v > 3", "rows": [{"key": 1, "id": "init-1"}]}, {"insert": "kv", "rows": [{"key": 2, "id": "t1-a", "row": {"k": 2, "v": 5}}]}, {"update": "kv", "where": "v < 3", "rows": [{"key": 1, "read": "init-1", "id": "t1-b", "row": {"k": 1, "v": 3}}]}, {"delete": "kv", "where": "v = 5", "rows": [{"key": 2, "read": "t1-a"}], "text": "DELETE FROM kv WHERE v = 5"}]}
{"session": "1", "level": "read-committed", "status": "unknown", "events": [{"select": "kv", "where": "v IS NULL", "rows": [{"key": "1", "id": "t1-b", "row": {"v": 3}}, {"key": [1, "a"], "id": "ghost", "row": {"s": "it's", "f": 1.0, "b": true, "n": null}}]}]}
{"session": 1, "level": "si", "status": "aborted", "events": []}
`
