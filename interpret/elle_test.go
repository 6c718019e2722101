package interpret_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// TestElleCycleType checks the names of cycles by the rules of Elle's
// cycle explainer (elle.txn/cycle-explainer).
func TestElleCycleType(t *testing.T) {
	const (
		so = verdict.SO
		wr = verdict.WR
		ww = verdict.WW
		rw = verdict.RW
		rt = verdict.RT
	)
	for _, c := range []struct {
		kinds []verdict.EdgeKind
		want  string
	}{
		{[]verdict.EdgeKind{ww, ww}, "G0"},
		{[]verdict.EdgeKind{ww, wr}, "G1c"},
		{[]verdict.EdgeKind{wr, wr, wr}, "G1c"},
		{[]verdict.EdgeKind{wr, rw}, "G-single"},
		{[]verdict.EdgeKind{ww, rw}, "G-single"},
		{[]verdict.EdgeKind{rw, rw}, "G2-item"},
		// The last edge is adjacent to the first.
		{[]verdict.EdgeKind{rw, wr, rw}, "G2-item"},
		{[]verdict.EdgeKind{wr, rw, wr, rw}, "G-nonadjacent"},
		{[]verdict.EdgeKind{so, ww}, "G0-process"},
		{[]verdict.EdgeKind{so, wr}, "G1c-process"},
		{[]verdict.EdgeKind{so, rw}, "G-single-process"},
		{[]verdict.EdgeKind{rw, so, rw, so}, "G-nonadjacent-process"},
		{[]verdict.EdgeKind{rw, rw, so}, "G2-item-process"},
		{[]verdict.EdgeKind{rt, rw}, "G-single-realtime"},
		// Real time wins over session order.
		{[]verdict.EdgeKind{rt, so, wr}, "G1c-realtime"},
		// A path through a time node is two RT edges.
		{[]verdict.EdgeKind{rt, rt, rw}, "G-single-realtime"},
		{[]verdict.EdgeKind{so, rt}, "G0-realtime"},
	} {
		cycle := make([]polygraph.Edge, len(c.kinds))
		for i, k := range c.kinds {
			cycle[i] = polygraph.Edge{From: int32(i), To: int32((i + 1) % len(c.kinds)), Kind: k}
		}
		if got := interpret.ElleCycleType(cycle); got != c.want {
			t.Errorf("%v: %s, want %s", c.kinds, got, c.want)
		}
	}
}

// TestElleModel checks Elle's names of isocheck's levels.
func TestElleModel(t *testing.T) {
	want := map[level.Level][2]string{
		level.SSER: {"strict-serializable", "strict-serializable"},
		level.SER:  {"strong-session-serializable", "serializable"},
		level.SI:   {"strong-session-snapshot-isolation", "snapshot-isolation"},
		level.PC:   {"prefix", "prefix"},
		level.CC:   {"causal-cerone", "causal-cerone"},
		level.RA:   {"read-atomic", "read-atomic"},
		level.RC:   {"strong-session-read-committed", "read-committed"},
	}
	for _, l := range level.All() {
		if got := [2]string{interpret.ElleModel(l, true), interpret.ElleModel(l, false)}; got != want[l] {
			t.Errorf("%v: %v, want %v", l, got, want[l])
		}
	}
}

// listTxn is a transaction of a list history for listHistory: ops are
// ["append", key, v] or ["r", key, [v...]].
type listTxn struct {
	id, session string
	status      history.Status
	ops         []any
}

// listHistory builds a history of lists.
func listHistory(txns ...listTxn) *history.History {
	b := history.NewBuilder(history.Null, "test.edn")
	for i, tx := range txns {
		var ops []history.Op
		var lists [][]history.Value
		for _, o := range tx.ops {
			o := o.([]any)
			k := b.Key(o[1].(string))
			if o[0] == "append" {
				ops = append(ops, history.Op{Kind: history.Write, Key: k, Value: history.Value(o[2].(int))})
				lists = append(lists, nil)
				continue
			}
			var l []history.Value
			for _, v := range o[2].([]int) {
				l = append(l, history.Value(v))
			}
			ops = append(ops, history.Op{Kind: history.Read, Key: k})
			lists = append(lists, l)
		}
		b.AddListTxn(history.Txn{ID: tx.id, Session: b.Session(tx.session), Status: tx.status, Start: history.NoTime, End: history.NoTime, Pos: int64(i + 1)}, ops, lists)
	}
	return b.History()
}

func ap(k string, v int) []any    { return []any{"append", k, v} }
func rl(k string, v ...int) []any { return []any{"r", k, v} }

// violation is a check.Result of h that violates l with the given
// evidence: for the anomalies of lists, which the checker does not find
// yet, and for cycles no register history shows.
func violation(h *history.History, l level.Level, anomalies []resolve.Anomaly, cycle []polygraph.Edge) *check.Result {
	n := len(h.Txns)
	return &check.Result{
		Level: l, Outcome: verdict.Outcome{Verdict: verdict.Violated}, Anomalies: anomalies, Cycle: cycle,
		Polygraph: &polygraph.Polygraph{History: h, T0: int32(n), NumNodes: n + 1},
	}
}

// TestElleResult checks Elle's result map of hand-made histories, one or
// more per anomaly type: its verdict, anomaly types, models ruled out,
// and the JSON of the cases.
func TestElleResult(t *testing.T) {
	check1 := func(jsonl string, l level.Level) func(t *testing.T) []*check.Result {
		return func(t *testing.T) []*check.Result {
			res, err := check.Check(context.Background(), historytest.JSONL(t, jsonl), l)
			if err != nil {
				t.Fatal(err)
			}
			return []*check.Result{res}
		}
	}
	// Appends of 1 and 2 to x by T1 and 3 by T2, read by T3.
	split := func(read ...int) *history.History {
		return listHistory(
			listTxn{id: "T1", session: "1", ops: []any{ap("x", 1), ap("x", 2)}},
			listTxn{id: "T2", session: "2", ops: []any{ap("x", 3)}},
			listTxn{id: "T3", session: "3", ops: []any{rl("x", read...)}},
		)
	}
	splitAnomaly := resolve.Anomaly{Kind: verdict.SplitAppends, Txn: 2, Op: 3, Writer: 0, OtherTxn: -1, OtherOp: -1, Key: 0}
	for _, c := range []struct {
		name    string
		results func(t *testing.T) []*check.Result
		session bool
		types   []string
		not     []string
		json    []string // substrings of the JSON
	}{
		{
			name: "G0", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(
					listTxn{id: "T1", session: "1", ops: []any{ap("x", 1), ap("y", 2)}},
					listTxn{id: "T2", session: "2", ops: []any{ap("x", 3), ap("y", 1)}},
				)
				return []*check.Result{violation(h, level.SER, nil, []polygraph.Edge{
					{From: 0, To: 1, Kind: verdict.WW, Key: 0}, {From: 1, To: 0, Kind: verdict.WW, Key: 1}})}
			},
			types: []string{"G0"},
			not:   []string{"strong-session-serializable"},
			json: []string{
				`"steps":[{"type":"ww","key":"x","value":1,"value'":3},{"type":"ww","key":"y","value":1,"value'":2}]`,
				`"cycle":[{"name":"T1","index":0,"source":"test.edn:1","process":1,"type":"ok","value":[["append","x",1],["append","y",2]]}`,
				`"type":"G0"`,
			},
		},
		{
			name: "G1c", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["r", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 1], ["r", "x", 1]]}`, level.SI),
			types: []string{"G1c"},
			not:   []string{"read-committed"},
			json:  []string{`"steps":[{"type":"wr","key":"x","value":1},{"type":"wr","key":"y","value":1}]`},
		},
		{
			name: "G1c-process", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["r", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["w", "x", 1]]}`, level.RC),
			types: []string{"G1c-process"},
			not:   []string{"strong-session-read-committed"},
			json:  []string{`"steps":[{"type":"process"},{"type":"wr","key":"x","value":1}]`},
		},
		{
			name: "G-single", session: false,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1], ["r", "y", null]]}`, level.SI),
			types: []string{"G-single"},
			not:   []string{"consistent-view"},
			json:  []string{`{"type":"rw","key":"y","value":null,"value'":1}`},
		},
		{
			// isocheck's RC forbids it, Elle's read-committed (PL-2)
			// does not: nothing is ruled out.
			name: "G-single at RC", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1], ["r", "y", null]]}`, level.RC),
			types: []string{"G-single"},
			not:   []string{},
		},
		{
			name: "G-single-process (read your writes)", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["r", "x", null]]}`, level.SI),
			types: []string{"G-single-process"},
			not:   []string{"strong-session-snapshot-isolation"},
		},
		{
			name: "G-single-realtime", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1]], "start": 0, "end": 10}
{"session": 2, "id": "T2", "ops": [["r", "x", null]], "start": 20, "end": 30}`, level.SSER),
			types: []string{"G-single-realtime"},
			not:   []string{"strong-snapshot-isolation"},
			json:  []string{`"steps":[{"type":"realtime"},{"type":"rw","key":"x","value":null,"value'":1}]`},
		},
		{
			name: "G-nonadjacent (long fork)", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["w", "y", 1]]}
{"session": 3, "id": "T3", "ops": [["r", "x", 1], ["r", "y", null]]}
{"session": 4, "id": "T4", "ops": [["r", "x", null], ["r", "y", 1]]}`, level.SI),
			types: []string{"G-nonadjacent"},
			not:   []string{"snapshot-isolation"},
		},
		{
			name: "G2-item (write skew)", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`, level.SER),
			types: []string{"G2-item"},
			not:   []string{"repeatable-read"},
			json:  []string{`"steps":[{"type":"rw","key":"y","value":null,"value'":1},{"type":"rw","key":"x","value":null,"value'":1}]`},
		},
		{
			name: "G1a (aborted read)", session: true,
			results: check1(`
{"session": 1, "id": "T1", "status": "aborted", "ops": [["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}`, level.RC),
			types: []string{"G1a"},
			not:   []string{"read-committed"},
			json: []string{
				`"op":{"name":"T2","index":1,"source":"test.jsonl:2","process":2,"type":"ok","value":[["r","x",1]]},"mop":["r","x",1]`,
				`"writer":{"name":"T1","index":0,"source":"test.jsonl:1","process":1,"type":"fail","value":[["w","x",1]]},"element":1`,
			},
		},
		{
			name: "G1a (thin air, list)", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(
					listTxn{id: "T1", session: "1", ops: []any{ap("x", 1)}},
					listTxn{id: "T2", session: "2", ops: []any{rl("x", 1, 5)}},
				)
				return []*check.Result{violation(h, level.SER, []resolve.Anomaly{{Kind: verdict.ThinAirRead, Txn: 1, Op: 1, Writer: -1, OtherTxn: -1, OtherOp: -1, Key: 0, Value: 5}}, nil)}
			},
			types: []string{"G1a"},
			json:  []string{`"mop":["r","x",[1,5]],"element":5}`},
		},
		{
			name: "G1b (intermediate read)", session: false,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["w", "x", 2]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 1]]}`, level.SER),
			types: []string{"G1b"},
			not:   []string{"read-committed"},
			json:  []string{`"element":1`},
		},
		{
			name: "internal (not my own write)", session: true,
			results: check1(`
{"session": 1, "id": "T1", "ops": [["w", "x", 1], ["r", "x", 2]]}
{"session": 2, "id": "T2", "ops": [["w", "x", 2]]}`, level.SER),
			types: []string{"internal"},
			json:  []string{`"mop":["r","x",2],"expected":1}`},
		},
		{
			name: "internal (list)", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(
					listTxn{id: "T1", session: "1", ops: []any{ap("x", 3), rl("x", 1)}},
					listTxn{id: "T2", session: "2", ops: []any{ap("x", 1)}},
				)
				return []*check.Result{violation(h, level.SER, []resolve.Anomaly{{Kind: verdict.NotMyOwnWrite, Txn: 0, Op: 1, Writer: 1, OtherTxn: -1, OtherOp: 0, Key: 0, Value: 1}}, nil)}
			},
			types: []string{"internal"},
			json:  []string{`"mop":["r","x",[1]],"expected":["...",3]}`, `"value":[["append","x",3],["r","x",[1]]]`},
		},
		{
			name: "future-read", session: true,
			results: check1(`{"session": 1, "id": "T1", "ops": [["r", "x", 1], ["w", "x", 1]]}`, level.SER),
			types:   []string{"future-read"},
			json:    []string{`"mop":["r","x",1],"element":1}`},
		},
		{
			name: "lost-update", session: true,
			results: check1(`
{"session": 0, "id": "T0", "ops": [["w", "x", 100]]}
{"session": 1, "id": "T1", "ops": [["r", "x", 100], ["w", "x", 150]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 100], ["w", "x", 70]]}`, level.SI),
			types: []string{"lost-update"},
			not:   []string{"cursor-stability", "update-atomic"},
			json:  []string{`"lost-update":[{"key":"x","value":100,"txns":[{"name":"T1"`},
		},
		{
			name: "incompatible-order", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(
					listTxn{id: "T1", session: "1", ops: []any{ap("x", 1)}},
					listTxn{id: "T2", session: "2", ops: []any{ap("x", 2)}},
					listTxn{id: "T3", session: "3", ops: []any{rl("x", 1, 2)}},
					listTxn{id: "T4", session: "4", ops: []any{rl("x", 2)}},
				)
				return []*check.Result{violation(h, level.SER, []resolve.Anomaly{{Kind: verdict.IncompatibleOrder, Txn: 3, Op: 3, Writer: -1, OtherTxn: -1, OtherOp: 2, Key: 0}}, nil)}
			},
			types: []string{"incompatible-order"},
			json:  []string{`"incompatible-order":[{"key":"x","values":[[2],[1,2]]}]`},
		},
		{
			name: "duplicate-elements", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(
					listTxn{id: "T1", session: "1", ops: []any{ap("x", 1)}},
					listTxn{id: "T2", session: "2", ops: []any{rl("x", 1, 1)}},
				)
				return []*check.Result{violation(h, level.SER, []resolve.Anomaly{{Kind: verdict.DuplicateElements, Txn: 1, Op: 1, Writer: 0, OtherTxn: -1, OtherOp: -1, Key: 0, Value: 1}}, nil)}
			},
			types: []string{"duplicate-elements"},
			json:  []string{`"mop":["r","x",[1,1]],"duplicates":{"1":2}`},
		},
		{
			name: "split appends: another's append between is G0", session: true,
			results: func(t *testing.T) []*check.Result {
				a := splitAnomaly
				a.Value = 3
				return []*check.Result{violation(split(1, 3, 2), level.SER, []resolve.Anomaly{a}, nil)}
			},
			types: []string{"G0"},
			json: []string{
				`"steps":[{"type":"ww","key":"x","value":1,"value'":3},{"type":"ww","key":"x","value":3,"value'":2}]`,
				`"cycle":[{"name":"T1"`,
			},
		},
		{
			name: "split appends: another's append after a missing one is G0", session: true,
			results: func(t *testing.T) []*check.Result {
				a := splitAnomaly
				a.Value = 3
				return []*check.Result{violation(split(1, 3), level.SER, []resolve.Anomaly{a}, nil)}
			},
			types: []string{"G0"},
			json:  []string{`"steps":[{"type":"ww","key":"x","value":1,"value'":3},{"type":"ww","key":"x","value":3,"value'":2}]`},
		},
		{
			name: "split appends: the writer's run out of order is G1b", session: true,
			results: func(t *testing.T) []*check.Result {
				a := splitAnomaly
				a.Value = 2
				return []*check.Result{violation(split(2, 1), level.SER, []resolve.Anomaly{a}, nil)}
			},
			types: []string{"G1b"},
			json:  []string{`"mop":["r","x",[2,1]],"writer":{"name":"T1"`, `"element":2`},
		},
		{
			// The checker proved the violation but gave no cycle.
			name: "cycle-exists", session: true,
			results: func(t *testing.T) []*check.Result {
				h := listHistory(listTxn{id: "T1", session: "1", ops: []any{ap("x", 1)}})
				return []*check.Result{violation(h, level.SI, nil, []polygraph.Edge{})}
			},
			types: []string{"strong-session-snapshot-isolation-cycle-exists"},
			not:   []string{"strong-session-snapshot-isolation"},
			json:  []string{`"anomalies":{"strong-session-snapshot-isolation-cycle-exists":[{"type":"strong-session-snapshot-isolation-cycle-exists","not":"strong-session-snapshot-isolation"}]}`},
		},
		{
			name: "no verdict", session: true,
			results: func(t *testing.T) []*check.Result {
				return []*check.Result{{Level: level.SER, Outcome: verdict.Outcome{Reason: "timed out"}}}
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := c.results(t)
			m := interpret.ElleResult(nil, results, c.session)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			js := string(b)
			switch {
			case c.types == nil && m.Valid != "unknown":
				t.Errorf("valid? %v, want unknown", m.Valid)
			case c.types != nil && m.Valid != false:
				t.Errorf("valid? %v, want false", m.Valid)
			}
			if !slices.Equal(m.AnomalyTypes, c.types) {
				t.Errorf("anomaly types %v, want %v", m.AnomalyTypes, c.types)
			}
			if c.not != nil && !slices.Equal(m.Not, c.not) {
				t.Errorf("not %v, want %v", m.Not, c.not)
			}
			for _, want := range c.json {
				if !strings.Contains(js, want) {
					t.Errorf("JSON lacks %s", want)
				}
			}
			// The report of the same violation has the same name.
			if len(c.types) == 1 && results[0].Verdict == verdict.Violated && !strings.HasSuffix(c.types[0], "-cycle-exists") {
				if got := interpret.Explain(results[0]).Anomaly.ElleType; got != c.types[0] {
					t.Errorf("report's ElleType %q, want %q", got, c.types[0])
				}
			}
			// It reads back.
			var back interpret.ElleMap
			if err := json.Unmarshal(b, &back); err != nil {
				t.Errorf("%v", err)
			} else if b2, _ := json.Marshal(&back); string(b2) != js {
				t.Errorf("JSON round trip\n%s\nwant\n%s", b2, js)
			}
			if t.Failed() {
				t.Log(js)
			}
		})
	}
}

// TestElleResultLevels checks the verdict and the models ruled out when
// several levels were checked: the weakest model the write skew (G2-item)
// rules out is Not, repeatable-read, those above it AlsoNot, and a
// violation shared by levels is listed once.
func TestElleResultLevels(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["r", "x", null], ["r", "y", null], ["w", "x", 1]]}
{"session": 2, "id": "T2", "ops": [["r", "x", null], ["r", "y", null], ["w", "y", 1]]}`)
	all, err := check.CheckAll(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	results := all.Results
	m := interpret.ElleResult(h, results, true)
	want := &interpret.ElleMap{
		Valid:        false,
		AnomalyTypes: []string{"G2-item"},
		Not:          []string{"repeatable-read"},
		AlsoNot:      []string{"serializable", "strict-serializable", "strong-session-serializable"},
	}
	if m.Valid != want.Valid || !reflect.DeepEqual(m.AnomalyTypes, want.AnomalyTypes) || !reflect.DeepEqual(m.Not, want.Not) || !reflect.DeepEqual(m.AlsoNot, want.AlsoNot) {
		t.Errorf("got %+v\nwant %+v", m, want)
	}
	if n := len(m.Anomalies["G2-item"]); n != 1 {
		t.Errorf("%d G2-item cases, want 1 (SSER's is SER's)", n)
	}
	m = interpret.ElleResult(h, results, false)
	if !slices.Equal(m.Not, []string{"repeatable-read"}) || !slices.Equal(m.AlsoNot, []string{"serializable", "strict-serializable", "strong-session-serializable"}) {
		t.Errorf("without session order: not %v, also-not %v", m.Not, m.AlsoNot)
	}
	ok := historytest.JSONL(t, `{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}`)
	all, err = check.CheckAll(context.Background(), ok)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(interpret.ElleResult(ok, all.Results, true)); string(b) != `{"valid?":true}` {
		t.Errorf("valid history: %s", b)
	}
}

// TestElleResultPC checks the evidence of prefix consistency, which the
// checker finds on the history split into halves (T/r, T/w): Elle's map
// and the report's name count the two halves of a transaction as one, and
// the map shows the history's own transactions.
func TestElleResultPC(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["r", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["w", "x", 1]]}`)
	res, err := check.Check(context.Background(), h, level.PC)
	if err != nil {
		t.Fatal(err)
	}
	if got := interpret.Explain(res).Anomaly.ElleType; got != "G1c-process" {
		t.Errorf("report's ElleType %q, want G1c-process", got)
	}
	m := interpret.ElleResult(h, []*check.Result{res}, true)
	b, _ := json.Marshal(m)
	want := `{"valid?":false,"anomaly-types":["G1c-process"],"anomalies":{"G1c-process":[{"type":"G1c-process",` +
		`"cycle":[{"name":"T1","index":0,"source":"test.jsonl:1","process":1,"type":"ok","value":[["r","x",1]]},` +
		`{"name":"T2","index":1,"source":"test.jsonl:2","process":1,"type":"ok","value":[["w","x",1]]},` +
		`{"name":"T1","index":0,"source":"test.jsonl:1","process":1,"type":"ok","value":[["r","x",1]]}],` +
		`"steps":[{"type":"process"},{"type":"wr","key":"x","value":1}]}]},` +
		`"not":["prefix"],"also-not":["serializable","snapshot-isolation","strict-serializable","strong-session-serializable","strong-session-snapshot-isolation","strong-snapshot-isolation"]}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

// TestElleResultWithoutSessionOrder checks that a history checked without
// its session order, each transaction in a session "s/i" of its own
// (history.History.WithoutSessionOrder), shows each transaction's
// original session as Elle's process.
func TestElleResultWithoutSessionOrder(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "3/0", "id": "T1", "ops": [["w", "x", 1], ["w", "y", 1]]}
{"session": "3/1", "id": "T2", "ops": [["r", "x", 1], ["r", "y", null]]}`)
	res, err := check.Check(context.Background(), h, level.SI)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(interpret.ElleResult(h, []*check.Result{res}, false))
	if got := strings.Count(string(b), `"process":3,`); got != 3 {
		t.Errorf("%d transactions of process 3, want 3:\n%s", got, b)
	}
	if !strings.Contains(string(b), `"not":["consistent-view"]`) || !strings.Contains(string(b), `"snapshot-isolation",`) {
		t.Errorf("not consistent-view, also not snapshot-isolation:\n%s", b)
	}
	b, _ = json.Marshal(interpret.ElleResult(h, []*check.Result{res}, true))
	if !strings.Contains(string(b), `"process":"3/0"`) {
		t.Errorf("with session order, the sessions are as named:\n%s", b)
	}
}

// TestElleRow checks the verdicts of reports in Elle's terms.
func TestElleRow(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["w", "x", 1]]}
{"session": 1, "id": "T2", "ops": [["r", "x", null]]}`)
	all, err := check.CheckAll(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, res := range all.Results {
		rows = append(rows, interpret.Explain(res).ElleRow(true))
	}
	rows = append(rows, interpret.Explain(&check.Result{Level: level.SI}).ElleRow(false))
	want := []string{
		"strict-serializable\tfalse\tG-single-process",
		"strong-session-serializable\tfalse\tG-single-process",
		"strong-session-snapshot-isolation\tfalse\tG-single-process",
		"prefix\tfalse\tG-single-process",
		"causal-cerone\tfalse\tG-single-process",
		"read-atomic\tfalse\tG-single-process",
		"strong-session-read-committed\ttrue",
		"snapshot-isolation\tunknown",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows\n%q\nwant\n%q", rows, want)
	}
}

// TestExplainNoCycle checks the report of a violation whose evidence has
// no cycle to show.
func TestExplainNoCycle(t *testing.T) {
	h := listHistory(listTxn{id: "T1", session: "1", ops: []any{ap("x", 1)}})
	rep := interpret.Explain(violation(h, level.SER, nil, []polygraph.Edge{}))
	if a := rep.Anomaly; a.Name.String() != "G2" || !strings.Contains(a.Summary, "no cycle to show") || len(a.Cycles) != 0 || a.ElleType != "" {
		t.Errorf("%+v", a)
	}
	if got := rep.ElleRow(true); got != "strong-session-serializable\tfalse" {
		t.Errorf("row %q", got)
	}
}
