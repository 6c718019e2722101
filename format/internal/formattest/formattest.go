package formattest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

// CorpusDir is the shared corpus of third-party histories, ../shared/corpus
// from the root of the repository, wherever the test runs.
var CorpusDir = filepath.Join(repoRoot(), "..", "shared", "corpus")

// repoRoot returns the nearest directory at or above the working
// directory that holds go.mod, or "." if there is none.
func repoRoot() string {
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return "."
		}
		d = up
	}
}

// Corpus returns the path of a corpus file or skips the test.
func Corpus(t testing.TB, elem ...string) string {
	t.Helper()
	if _, err := os.Stat(CorpusDir); err != nil {
		t.Skipf("corpus directory %s is missing: %v", CorpusDir, err)
	}
	return filepath.Join(append([]string{CorpusDir}, elem...)...)
}

// Dump renders h canonically, with positions if withPos.
func Dump(h *history.History, withPos bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "init %s\n", h.FormatValue(h.Init))
	for s, txns := range h.Sessions {
		fmt.Fprintf(&b, "session %s:", h.SessionName(s))
		for _, t := range txns {
			fmt.Fprintf(&b, " %d", t)
		}
		b.WriteByte('\n')
	}
	for t := range h.Txns {
		tx := &h.Txns[t]
		fmt.Fprintf(&b, "%d %q s%s %v", t, tx.ID, h.SessionName(int(tx.Session)), tx.Status)
		if tx.Start != history.NoTime || tx.End != history.NoTime {
			fmt.Fprintf(&b, " [%s,%s]", TimeString(tx.Start), TimeString(tx.End))
		}
		if withPos {
			fmt.Fprintf(&b, " @%s", h.Where(t))
		}
		b.WriteByte(':')
		for _, op := range h.OpsOf(t) {
			fmt.Fprintf(&b, " %v(%s,%s)", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TimeString(t int64) string {
	if t == history.NoTime {
		return "-"
	}
	return fmt.Sprint(t)
}

// CheckConsistent checks the invariants every reader must establish.
func CheckConsistent(t testing.TB, h *history.History) {
	t.Helper()
	if len(h.Sessions) != len(h.SessionNames) {
		t.Fatalf("%d sessions but %d session names", len(h.Sessions), len(h.SessionNames))
	}
	inSession := 0
	for s, txns := range h.Sessions {
		for _, i := range txns {
			if int(i) >= len(h.Txns) || h.Txns[i].Session != int32(s) {
				t.Fatalf("session %d lists transaction %d of another session", s, i)
			}
		}
		inSession += len(txns)
	}
	if inSession != len(h.Txns) {
		t.Fatalf("sessions list %d transactions, history has %d", inSession, len(h.Txns))
	}
	next := int32(0)
	for i, tx := range h.Txns {
		if tx.OpStart != next || tx.OpEnd < tx.OpStart {
			t.Fatalf("transaction %d: ops [%d,%d), want start %d", i, tx.OpStart, tx.OpEnd, next)
		}
		next = tx.OpEnd
		if int(tx.File) >= len(h.Files) {
			t.Fatalf("transaction %d: file %d of %d", i, tx.File, len(h.Files))
		}
	}
	if int(next) != len(h.Ops) {
		t.Fatalf("transactions cover %d ops of %d", next, len(h.Ops))
	}
	for i, op := range h.Ops {
		if op.Key < 0 || int(op.Key) >= h.NumKeys() {
			t.Fatalf("op %d: key %d of %d", i, op.Key, h.NumKeys())
		}
		if op.Kind != history.Read && op.Kind != history.Write {
			t.Fatalf("op %d: kind %d", i, op.Kind)
		}
	}
}

// CheckError checks that err is an *Error.
func CheckError(t testing.TB, err error) *scan.Error {
	t.Helper()
	var e *scan.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *format.Error", err, err)
	}
	return e
}

// Bin builds dbcop bincode inputs.
type Bin struct{ B []byte }

func (e *Bin) U64(vs ...uint64) *Bin {
	for _, v := range vs {
		e.B = binary.LittleEndian.AppendUint64(e.B, v)
	}
	return e
}

func (e *Bin) U8(vs ...byte) *Bin { e.B = append(e.B, vs...); return e }

func (e *Bin) Str(s string) *Bin { e.U64(uint64(len(s))); e.B = append(e.B, s...); return e }

// Header appends a dbcop header with the given counts.
func (e *Bin) Header(nodes, vars, txns, events uint64) *Bin {
	return e.U64(0, nodes, vars, txns, events).Str("Test").Str("t0").Str("t1")
}

// Event appends one event.
func (e *Bin) Event(write bool, v, val uint64, ok bool) *Bin {
	return e.U8(b2u(write)).U64(v, val).U8(b2u(ok))
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// CobraLog builds Cobra log files.
type CobraLog struct{ B []byte }

func (c *CobraLog) rec(tag byte, vs ...uint64) *CobraLog {
	c.B = append(c.B, tag)
	for _, v := range vs {
		c.B = binary.BigEndian.AppendUint64(c.B, v)
	}
	return c
}

func (c *CobraLog) S(id uint64) *CobraLog                { return c.rec('S', id) }
func (c *CobraLog) C(id uint64) *CobraLog                { return c.rec('C', id) }
func (c *CobraLog) W(wid, key, val uint64) *CobraLog     { return c.rec('W', wid, key, val) }
func (c *CobraLog) R(wt, wid, key, val uint64) *CobraLog { return c.rec('R', wt, wid, key, val) }

// WriteDir writes files into a new temporary directory.
func WriteDir(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// RoundTrip writes h in format f and reads it back.
func RoundTrip(t testing.TB, h *history.History, f format.Format) *history.History {
	t.Helper()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, f); err != nil {
		t.Fatalf("Write(%s): %v", f, err)
	}
	h2, err := format.Read(&buf, "roundtrip", f)
	if err != nil {
		t.Fatalf("Read(Write(%s)): %v", f, err)
	}
	return h2
}

// SameHistory reports whether a and b have the same contents, apart from
// positions: what dump(a, false) == dump(b, false) checks, but faster.
func SameHistory(a, b *history.History) bool {
	if a.Init != b.Init || len(a.Txns) != len(b.Txns) || len(a.Ops) != len(b.Ops) || !slices.Equal(a.SessionNames, b.SessionNames) {
		return false
	}
	for s := range a.Sessions {
		if len(a.Sessions[s]) != len(b.Sessions[s]) {
			return false
		}
		for i := range a.Sessions[s] {
			if a.Sessions[s][i] != b.Sessions[s][i] {
				return false
			}
		}
	}
	value := func(h *history.History, v history.Value) (history.Value, string) {
		if v >= history.StringBase && int64(v-history.StringBase) < int64(len(h.ValueNames)) {
			return 0, h.ValueNames[v-history.StringBase]
		}
		return v, ""
	}
	for t := range a.Txns {
		ta, tb := &a.Txns[t], &b.Txns[t]
		if ta.ID != tb.ID || ta.Session != tb.Session || ta.Status != tb.Status || ta.Start != tb.Start || ta.End != tb.End ||
			ta.OpStart != tb.OpStart || ta.OpEnd != tb.OpEnd {
			return false
		}
	}
	for i := range a.Ops {
		oa, ob := a.Ops[i], b.Ops[i]
		va, sa := value(a, oa.Value)
		vb, sb := value(b, ob.Value)
		if oa.Kind != ob.Kind || a.FormatKey(oa.Key) != b.FormatKey(ob.Key) || va != vb || sa != sb {
			return false
		}
	}
	return true
}
