package cobra_test

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/cobra"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

func TestReadCobra(t *testing.T) {
	t1 := new(formattest.CobraLog).
		S(0x10).W(100, 7, 0xabc).R(cobra.CobraInit, cobra.CobraInit, 8, 0).C(0x10).                                // at 0
		S(0x11).R(0x10, 100, 7, 0xabc).R(cobra.CobraNull, cobra.CobraNull, 9, 0).R(0x10, math.MaxUint64, 1<<63, 1) // at 76, no commit
	t2 := new(formattest.CobraLog).S(0x20).C(0x20)
	tx := new(formattest.CobraLog).S(0x30).C(0x30)
	dir := formattest.WriteDir(t, map[string][]byte{
		"T10.log":   nil,
		"T2.log":    t2.B,
		"T1.log":    t1.B,
		"Tx.log":    tx.B,
		"notes.txt": []byte("not a log"),
	})
	if f, err := format.Detect(dir); err != nil || f != format.Cobra {
		t.Fatalf("Detect: %v, %v", f, err)
	}
	h, info, err := format.ReadFileInfo(dir, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	if info.Format != format.Cobra {
		t.Errorf("format %v", info.Format)
	}
	want := `init 0
session T1: 0 1
session T2: 2
session T10:
session Tx: 3
0 "0x10" sT1 committed: w(7,2748) r(8,0)
1 "0x11" sT1 unknown: r(7,2748) r(9,0) r(9223372036854775808,1)
2 "0x20" sT2 committed:
3 "0x30" sTx committed:
`
	if got := formattest.Dump(h, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	wantFiles := []string{filepath.Join(dir, "T1.log"), filepath.Join(dir, "T2.log"), filepath.Join(dir, "T10.log"), filepath.Join(dir, "Tx.log")}
	if !slices.Equal(h.Files, wantFiles) {
		t.Errorf("files %q, want %q", h.Files, wantFiles)
	}
	if !h.PosIsOffset || h.Txns[1].Pos != 76 || h.Txns[1].File != 0 || h.Txns[2].File != 1 || h.Txns[3].File != 3 {
		t.Errorf("positions: %v %+v", h.PosIsOffset, h.Txns)
	}

	// A single log file is a one-session history.
	one := filepath.Join(dir, "T2.log")
	if f, err := format.Detect(one); err != nil || f != format.Cobra {
		t.Fatalf("Detect(%s): %v, %v", one, f, err)
	}
	h, err = format.ReadFile(one, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formattest.Dump(h, false), "init 0\nsession T2: 0\n0 \"0x20\" sT2 committed:\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestReadCobraErrors(t *testing.T) {
	c := func() *formattest.CobraLog { return new(formattest.CobraLog) }
	tests := []struct {
		name string
		in   []byte
		off  int64
		msg  string
	}{
		{"unknown record", []byte("X"), 0, `unknown record type 'X' (want 'S', 'W', 'R' or 'C')`},
		{"short record", c().S(1).W(5, 1, 1).B[:20], 9, "unexpected end of file in a W record: it needs 25 bytes, the file ends after 11"},
		{"write outside", c().W(5, 1, 1).B, 0, "W record outside a transaction"},
		{"commit outside", c().S(1).C(1).C(1).B, 18, "C record outside a transaction"},
		{"nested start", c().S(1).W(5, 1, 1).S(2).B, 34, "transaction 0x2 starts before transaction 0x1 (at byte offset 0) commits"},
		{"wrong commit", c().S(1).C(2).B, 9, "commit of transaction 0x2 inside transaction 0x1 (at byte offset 0)"},
		{"write id 0", c().S(1).W(0, 1, 1).B, 9, "write id 0x0 is reserved"},
		{"write id INIT", c().S(1).W(cobra.CobraInit, 1, 1).B, 9, "write id 0xbebeebee is reserved"},
		{"read id 0", c().S(1).R(3, 0, 1, 1).B, 9, "read of write id 0x0, which is reserved"},
		{"half INIT", c().S(1).R(cobra.CobraInit, 5, 1, 1).B, 9, "INIT (0xbebeebee) and NULL (0xdeadbeef) must be in both ids"},
		{"INIT and NULL", c().S(1).R(cobra.CobraInit, cobra.CobraNull, 1, 1).B, 9, "must be in both ids"},
	}
	for _, tt := range tests {
		dir := formattest.WriteDir(t, map[string][]byte{"T1.log": tt.in})
		_, err := format.ReadFile(dir, format.Cobra)
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.name, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if want := filepath.Join(dir, "T1.log"); e.File != want || e.Line != 0 || e.Offset != tt.off || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s:\ngot  %v\nwant %s: byte offset %d: ...%s...", tt.name, err, want, tt.off, tt.msg)
		}
	}
	dir := formattest.WriteDir(t, map[string][]byte{"x.log": nil})
	_, err := format.ReadFile(dir, format.Cobra)
	if e := formattest.CheckError(t, err); e.Offset != -1 || !strings.Contains(e.Msg, "no Cobra T*.log files") {
		t.Errorf("empty directory: got %v", err)
	}
	if _, err := format.Read(strings.NewReader(""), "x", format.Cobra); err == nil {
		t.Errorf("Read(Cobra) succeeded")
	}
}

func TestCobraLogOrder(t *testing.T) {
	dir := formattest.WriteDir(t, map[string][]byte{"T9.log": nil, "T10.log": nil, "T100.log": nil, "T1.log": nil, "Tb.log": nil, "Ta.log": nil, "T.log": nil})
	logs, err := cobra.Logs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"T1.log", "T9.log", "T10.log", "T100.log", "T.log", "Ta.log", "Tb.log"}
	if !slices.Equal(logs, want) {
		t.Errorf("got %q, want %q", logs, want)
	}
}

// TestCobraValues checks that operations get the values of the file, that
// reads are checked against the writes they name, in any log, and that
// keys where values would be ambiguous get write ids.
func TestCobraValues(t *testing.T) {
	c := func() *formattest.CobraLog { return new(formattest.CobraLog) }
	// T1 reads writes of T2, a later log, and T2 reads T1's.
	t1 := c().S(0x10).R(0x20, 200, 1, 11).W(100, 2, 22).C(0x10).
		S(0x11).R(cobra.CobraInit, cobra.CobraInit, 3, 0xfeed).R(cobra.CobraNull, cobra.CobraNull, 4, 5).C(0x11)
	t2 := c().S(0x20).W(200, 1, 11).C(0x20).
		S(0x21).R(0x10, 100, 2, 22).R(cobra.CobraInit, cobra.CobraInit, 3, 0xfeed).C(0x21)
	dir := formattest.WriteDir(t, map[string][]byte{"T1.log": t1.B, "T2.log": t2.B})
	h, err := format.ReadFile(dir, format.Cobra)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	want := `init 0
session T1: 0 1
session T2: 2 3
0 "0x10" sT1 committed: r(1,11) w(2,22)
1 "0x11" sT1 committed: r(3,0) r(4,0)
2 "0x20" sT2 committed: w(1,11)
3 "0x21" sT2 committed: r(2,22) r(3,0)
`
	if got := formattest.Dump(h, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// Keys where values are ambiguous get write ids; the others keep
	// their values.
	amb := c().S(1)
	amb.W(101, 1, 7).W(102, 1, 7) // key 1: one value twice
	amb.W(103, 2, 0)              // key 2: a write of 0
	amb.W(104, 3, 9).W(105, 4, 9) // keys 3 and 4: one value each
	amb.R(1, 101, 1, 7).R(1, 103, 2, 0).R(1, 104, 3, 9)
	amb.R(7, 777, 5, 1)              // key 5: a write no log holds, a fresh value
	amb.W(106, 6, 3).R(8, 888, 6, 3) // key 6: a write no log holds, a value written
	amb.C(1)
	h, err = formattest.ReadCobraBytes(amb.B)
	if err != nil {
		t.Fatal(err)
	}
	want = `init 0
session T1: 0
0 "0x1" sT1 committed: w(1,101) w(1,102) w(2,103) w(3,9) w(4,9) r(1,101) r(2,103) r(3,9) r(5,1) w(6,106) r(6,888)
`
	if got := formattest.Dump(h, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Read as a single log, detected.
	h2, info, err := format.ReadInfo(bytes.NewReader(amb.B), "T1.log", format.Auto)
	if err != nil || info.Format != format.Cobra || !formattest.SameHistory(h, h2) {
		t.Errorf("detected: %v, %v:\n%s", info, err, formattest.Dump(h2, false))
	}
}

func TestCobraReadErrors(t *testing.T) {
	c := func() *formattest.CobraLog { return new(formattest.CobraLog) }
	other := c().S(0x20).W(200, 1, 11).C(0x20) // T2.log
	tests := []struct {
		name string
		t1   *formattest.CobraLog
		off  int64
		msg  string
	}{
		{"value", c().S(1).R(0x20, 200, 1, 12).C(1), 9, "read of key 1 returned 12, but the write it names, 0xc8 of transaction 0x20 (at T2.log: byte offset 0), wrote 11"},
		{"key", c().S(1).W(5, 3, 3).R(0x20, 200, 2, 11).C(1), 34, "read of key 2 names write 0xc8 of transaction 0x20 (at T2.log: byte offset 0), which wrote key 1"},
		{"transaction", c().S(1).R(0x21, 200, 1, 11).C(1), 9, "read of key 1 names write 0xc8 of transaction 0x21, but that write is in transaction 0x20 (at T2.log: byte offset 0)"},
		{"initial state", c().S(1).R(cobra.CobraInit, cobra.CobraInit, 1, 3).C(1).S(2).R(cobra.CobraInit, cobra.CobraInit, 1, 4).C(2), 60, "read of the initial state of key 1 returned 4, but the read at T1.log: byte offset 9 returned 3"},
	}
	for _, tt := range tests {
		dir := formattest.WriteDir(t, map[string][]byte{"T1.log": tt.t1.B, "T2.log": other.B})
		_, err := format.ReadFile(dir, format.Cobra)
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.name, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		want := strings.ReplaceAll(tt.msg, "T2.log", filepath.Join(dir, "T2.log"))
		want = strings.ReplaceAll(want, "T1.log:", filepath.Join(dir, "T1.log")+":")
		file := filepath.Join(dir, "T1.log")
		if e.File != file || e.Line != 0 || e.Offset != tt.off || !strings.Contains(e.Msg, want) {
			t.Errorf("%s:\ngot  %v\nwant %s: byte offset %d: ...%s...", tt.name, err, file, tt.off, want)
		}
	}
}

// TestCobraSharedWriteID reads logs that give every write one id and name
// it in every read, as those of histories whose values repeat do: values
// stand for themselves on the keys written under it, and the reads name
// no writer.
func TestCobraSharedWriteID(t *testing.T) {
	const shared = 0xabddefee
	c := func() *formattest.CobraLog { return new(formattest.CobraLog) }
	t1 := c().S(1).W(shared, 1, 7).W(shared, 2, 0).C(1).S(3).R(shared, shared, 1, 7).R(cobra.CobraInit, cobra.CobraInit, 2, 0).C(3)
	t2 := c().S(2).W(shared, 1, 7).C(2)
	dir := formattest.WriteDir(t, map[string][]byte{"T1.log": t1.B, "T2.log": t2.B})
	h, err := format.ReadFile(dir, format.Cobra)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, op := range h.Ops {
		ops = append(ops, fmt.Sprintf("%v(%s,%s)", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value)))
	}
	// Transaction 2 writes 7 to key 1 too; the write of 0 to key 2 is a
	// write of the initial value.
	want := "w(1,7) w(2,0) r(1,7) r(2,0) w(1,7)"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("operations %s, want %s", got, want)
	}
}
