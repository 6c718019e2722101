package sqlhistory

import (
	"fmt"
	"strconv"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
)

// KVTable is the table FromKV puts a key-value history's keys in: one row
// per key, with columns KVKey and KVValue.
const (
	KVTable = "kv"
	KVKey   = "k"
	KVValue = "v"
)

// FromKV returns key-value history h as a SQL history whose transactions
// all have level l: the special case of Bouajjani et al. (CAV 2025) §4.2,
// where a read of key x is SELECT(k = x) and a write is an INSERT (an
// upsert) of the row {k: x, v: value}. Every key starts with the row
// {k: x, v: h.Init}. Lists and real time have no counterpart and are
// refused.
func FromKV(h *history.History, l level.Level) (*History, error) {
	if h.Lists {
		return nil, fmt.Errorf("sqlhistory: a history of lists has no SQL counterpart")
	}
	b := NewBuilder("")
	keyText := func(k history.Key) string { return strconv.Itoa(int(k)) }
	row := func(k history.Key, v history.Value) predicate.Row {
		val := predicate.Int(int64(v))
		if v == history.Null {
			val = predicate.Null()
		}
		return predicate.Row{KVKey: predicate.Int(int64(k)), KVValue: val}
	}
	version := func(k history.Key, v history.Value) string { return fmt.Sprintf("%d:%d", k, v) }
	for k := range h.KeyNames {
		key := history.Key(k)
		if err := b.AddInitial(KVTable, keyText(key), version(key, h.Init), row(key, h.Init), 0); err != nil {
			return nil, err
		}
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		spec := TxnSpec{Name: t.ID, Session: strconv.Itoa(int(t.Session)), Level: l, Line: int(t.Pos)}
		if spec.Name == "" {
			spec.Name = "T" + strconv.Itoa(i)
		}
		spec.Status = t.Status
		for _, op := range h.Ops[t.OpStart:t.OpEnd] {
			k := keyText(op.Key)
			if op.Kind == history.Write {
				spec.Events = append(spec.Events, EventSpec{Kind: Insert, Table: KVTable,
					Rows: []RowSpec{{Key: k, Write: version(op.Key, op.Value), Row: row(op.Key, op.Value)}}})
				continue
			}
			spec.Events = append(spec.Events, EventSpec{Kind: Select, Table: KVTable,
				Where: predicate.KeyEquals(KVKey, predicate.Int(int64(op.Key))),
				Rows:  []RowSpec{{Key: k, Read: version(op.Key, op.Value)}}})
		}
		if _, err := b.AddTxn(spec); err != nil {
			return nil, err
		}
	}
	return b.History()
}
