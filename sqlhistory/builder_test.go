package sqlhistory_test

import (
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

var row = predicate.Row{"v": predicate.Int(1)}

func TestBuilderErrors(t *testing.T) {
	sel := func(rows ...sqlhistory.RowSpec) sqlhistory.EventSpec {
		return sqlhistory.EventSpec{Kind: sqlhistory.Select, Table: "t", Rows: rows}
	}
	for _, tc := range []struct {
		name string
		txn  sqlhistory.TxnSpec
		want string
	}{
		{"bad level", sqlhistory.TxnSpec{Name: "a", Level: level.SSER}, "level SSER"},
		{"no table", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Select}}}, "no table"},
		{"select writes", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{sel(sqlhistory.RowSpec{Key: "1", Read: "x", Write: "y"})}}, "a select's row"},
		{"insert without content", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Insert, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "y"}}}}}, "an insert's row"},
		{"insert with predicate", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Insert, Table: "t", Where: predicate.MustParse("v = 1")}}}, "no predicate"},
		{"update without read", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Update, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "y", Row: row}}}}}, "an update's row"},
		{"delete with content", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Delete, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Read: "x", Row: row}}}}}, "a delete's row"},
		{"a row twice", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Insert, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "y", Row: row}, {Key: "1", Write: "z", Row: row}}}}}, "written twice by one statement"},
		{"a version twice", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{{Kind: sqlhistory.Insert, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "1", Write: "i1", Row: row}}}}}, `version "i1" is written twice`},
		{"a version of another row", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{sel(sqlhistory.RowSpec{Key: "2", Read: "i1"})}}, "is of row t/1, not t/2"},
		{"content read differs", sqlhistory.TxnSpec{Name: "a", Level: level.SER, Events: []sqlhistory.EventSpec{sel(sqlhistory.RowSpec{Key: "1", Read: "i1", Row: predicate.Row{"v": predicate.Int(2)}})}}, "read as v = 2"},
	} {
		b := sqlhistory.NewBuilder("h.jsonl")
		if err := b.AddInitial("t", "1", "i1", row, 1); err != nil {
			t.Fatal(err)
		}
		tc.txn.Line = 7
		_, err := b.AddTxn(tc.txn)
		if err == nil {
			_, err = b.History()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "h.jsonl:7: ") {
			t.Errorf("%s: error %v, want h.jsonl:7: ... %s", tc.name, err, tc.want)
		}
	}
}

// TestSubset: a subset keeps the sessions and versions, and a version
// whose writer is dropped is written by nobody.
func TestSubset(t *testing.T) {
	b := sqlhistory.NewBuilder("")
	for i, s := range []string{"a", "b", "a"} {
		_, err := b.AddTxn(sqlhistory.TxnSpec{Name: "T" + string(rune('0'+i)), Session: s, Level: level.RC, Events: []sqlhistory.EventSpec{
			{Kind: sqlhistory.Insert, Table: "t", Rows: []sqlhistory.RowSpec{{Key: "k", Write: "v" + string(rune('0'+i)), Row: row}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	sub, orig := h.Subset([]bool{true, false, true})
	if len(sub.Txns) != 2 || orig[0] != 0 || orig[1] != 2 {
		t.Fatalf("subset %d transactions, orig %v", len(sub.Txns), orig)
	}
	if got := sub.Sessions[0]; len(got) != 2 || got[0] != 0 || got[1] != 1 || sub.SessionName(0) != "a" {
		t.Errorf("session a: %v (%s)", got, sub.SessionName(0))
	}
	if w := sub.Versions[1].Writer; w != sqlhistory.Unwritten {
		t.Errorf("T1's version written by %d in the subset", w)
	}
	if w := sub.Versions[2].Writer; w != 1 {
		t.Errorf("T2's version written by %d, want 1", w)
	}
}
