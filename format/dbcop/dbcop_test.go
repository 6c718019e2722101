package dbcop_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/dbcop"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/history"
)

func TestReadDBCop(t *testing.T) {
	h, info, err := format.ReadInfo(bytes.NewReader(formattest.SmallDBCop()), "d.bincode", format.DBCop)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	want := `init 0
session 0: 0 1
session 1: 2
0 "s0t0" s0 committed @d.bincode@88: w(1,5) r(2,0)
1 "s0t1" s0 aborted @d.bincode@151:
2 "s1t0" s1 aborted @d.bincode@168: r(1,5) w(3,-1)
`
	if got := formattest.Dump(h, true); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	wantInfo := &format.Info{
		Format:       format.DBCop,
		FailedEvents: map[int]int{0: 1},
		DBCop:        &dbcop.Header{Nodes: 2, Variables: 3, Transactions: 2, Events: 3, Info: "Test", Start: "t0", End: "t1"},
	}
	if !reflect.DeepEqual(info, wantInfo) {
		t.Errorf("info %+v %+v, want %+v %+v", info, info.DBCop, wantInfo, wantInfo.DBCop)
	}
	if !h.PosIsOffset {
		t.Errorf("PosIsOffset is false")
	}
}

func TestReadDBCopErrors(t *testing.T) {
	hdr := func() *formattest.Bin { return new(formattest.Bin).Header(1, 1, 1, 1) } // 72 bytes
	tests := []struct {
		name string
		in   []byte
		off  int64
		msg  string
	}{
		{"short header", make([]byte, 10), 8, "unexpected end of file in the header's n_node (the input ends at byte offset 10)"},
		{"huge string", new(formattest.Bin).U64(0, 1, 1, 1, 1, 1<<62).B, 40, "the length of the header's info is 4611686018427387904, but only 0 bytes remain"},
		{"long string", append(new(formattest.Bin).U64(0, 1, 1, 1, 1, 10000).B, make([]byte, 5000)...), 40, "the length of the header's info is 10000, but only 5000 bytes remain"},
		{"bad UTF-8", new(formattest.Bin).U64(0, 1, 1, 1, 1).Str("\xff").B, 40, "the header's info is not valid UTF-8"},
		{"no body", hdr().B, 72, "unexpected end of file in the number of sessions"},
		{"huge session count", hdr().U64(1 << 60).B, 72, "the number of sessions is 1152921504606846976, but only 0 bytes remain (at least 8 each)"},
		{"short session stream", hdr().U64(1).B, 80, "unexpected end of file in the number of transactions of session 0"},
		{"huge transaction count", hdr().U64(1, 1<<40).B, 80, "the number of transactions of session 0 is 1099511627776, but only 0 bytes remain (at least 9 each)"},
		{"huge event count", hdr().U64(1, 1, 1<<62).U8(1).B, 88, "the number of events of transaction 0 of session 0 is 4611686018427387904, but only 1 bytes remain (at least 18 each)"},
		{"long transaction", append(hdr().U64(1, 1, 1<<23).B, make([]byte, 18<<23+1)...), 88, "the number of events of transaction 0 of session 0 is 8388608, more than the limit of 3728270"},
		{"short event", append(hdr().U64(1, 1, 1).B, make([]byte, 18)...)[:99], 88, "the number of events of transaction 0 of session 0 is 1, but only 3 bytes remain"},
		{"short event stream", append(hdr().U64(1, 1, 1).B, 1, 2, 3), 96, "unexpected end of file in an event of transaction 0 of session 0 (the input ends at byte offset 99)"},
		{"bad write flag", hdr().U64(1, 1, 1).U8(2).U64(0, 0).U8(1).B, 96, "the write flag of an event of transaction 0 of session 0 is 2, want 0 or 1"},
		{"bad success flag", hdr().U64(1, 1, 1).U8(1).U64(0, 0).U8(7).B, 113, "the success flag of an event of transaction 0 of session 0 is 7, want 0 or 1"},
		{"missing txn flag", hdr().U64(1, 1, 0).B, 80, "the number of transactions of session 0 is 1, but only 8 bytes remain (at least 9 each)"},
		{"missing txn flag stream", hdr().U64(1, 1, 0).B, 96, "unexpected end of file in the success flag of transaction 0 of session 0"},
		{"bad txn flag", hdr().U64(1, 1, 0).U8(2).B, 96, "the success flag of transaction 0 of session 0 is 2, want 0 or 1"},
		{"trailing data", hdr().U64(1, 1, 0).U8(1).U8(0).B, 97, "unexpected data after the end of the history"},
	}
	for _, tt := range tests {
		// An input whose size is unknown is read as a stream: counts are
		// checked against the bytes actually there.
		var r io.Reader = bytes.NewReader(tt.in)
		if strings.HasSuffix(tt.name, " stream") {
			r = io.MultiReader(r)
		}
		_, err := format.Read(r, "bad.bincode", format.DBCop)
		if err == nil {
			t.Errorf("%s: no error, want %q", tt.name, tt.msg)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.File != "bad.bincode" || e.Line != 0 || e.Offset != tt.off || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s:\ngot  %v\nwant bad.bincode: byte offset %d: ...%s...", tt.name, err, tt.off, tt.msg)
		}
	}
}

func TestWriteDBCop(t *testing.T) {
	h, err := format.Read(bytes.NewReader(formattest.SmallDBCop()), "d.bincode", format.DBCop)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := format.Write(&buf, h, format.DBCop); err != nil {
		t.Fatal(err)
	}
	h2, info, err := format.ReadInfo(bytes.NewReader(buf.Bytes()), "w.bincode", format.DBCop)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := formattest.Dump(h, false), formattest.Dump(h2, false); a != b {
		t.Errorf("round trip changed the history:\n%s\nto\n%s", a, b)
	}
	want := &dbcop.Header{Nodes: 2, Variables: 3, Transactions: 2, Events: 2, Info: "isocheck", Start: dbcop.DbcopNoTime, End: dbcop.DbcopNoTime}
	if !reflect.DeepEqual(info.DBCop, want) || len(info.FailedEvents) != 0 {
		t.Errorf("header %+v, failed events %v; want %+v and none", info.DBCop, info.FailedEvents, want)
	}

	// Random integer histories.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20; i++ {
		b := history.NewBuilder(0)
		for s := 0; s < 4; s++ {
			b.IntSession(int64(s))
		}
		var ops []history.Op
		for t := 0; t < 40; t++ {
			ops = ops[:0]
			for j := rng.IntN(6); j > 0; j-- {
				ops = append(ops, history.Op{Kind: history.OpKind(rng.IntN(2)), Key: scan.UintKey(b, rng.Uint64()), Value: history.Value(rng.Int64N(50))})
			}
			b.AddTxn(history.Txn{Session: int32(rng.IntN(4)), Status: history.Status(rng.IntN(2))}, ops)
		}
		h := b.History()
		h2 := formattest.RoundTrip(t, h, format.DBCop)
		formattest.CheckConsistent(t, h2)
		if !formattest.SameButIDs(h, h2) {
			t.Fatalf("round trip changed the history:\n%s\nto\n%s", formattest.Dump(h, false), formattest.Dump(h2, false))
		}
	}
}

func TestWriteDBCopErrors(t *testing.T) {
	build := func(init history.Value, f func(b *history.Builder)) *history.History {
		b := history.NewBuilder(init)
		f(b)
		return b.History()
	}
	tests := []struct {
		h   *history.History
		msg string
	}{
		{build(0, func(b *history.Builder) {
			b.AddTxn(history.Txn{Session: b.Session("s"), Status: history.Unknown}, nil)
		}), "is unknown, which the dbcop format cannot represent"},
	}
	for _, tt := range tests {
		err := format.Write(io.Discard, tt.h, format.DBCop)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("got %v, want %q", err, tt.msg)
		}
	}
}
