package interpret_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/historytest"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
)

// decode marshals rep as --json does and decodes it both as untyped JSON
// and back into a Report.
func decode(t *testing.T, rep *interpret.Report) (map[string]any, *interpret.Report) {
	t.Helper()
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var back interpret.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return m, &back
}

// TestJSONTypes checks that the JSON report holds typed values: integers
// as numbers, strings as strings, null as null, integer sessions, keys and
// ids as numbers, and operations as objects.
func TestJSONTypes(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": "alice", "id": "post", "ops": [["w", "post:1", "lunch?"]]}
{"session": 2, "id": 12, "ops": [["r", "post:1", "lunch?"], ["w", "reply:1", "yes!"], ["w", 7, 1]]}
{"session": "carol", "id": "read-thread", "ops": [["r", 7, 1], ["r", "reply:1", "yes!"], ["r", "post:1", null]]}`)
	for _, l := range []level.Level{level.CC, level.SER} {
		rep, res := minimal(t, h, l)
		for name, rep := range map[string]*interpret.Report{"minimal": rep, "explain": interpret.Explain(res)} {
			t.Run(l.String()+"/"+name, func(t *testing.T) {
				m, back := decode(t, rep)
				if name == "minimal" {
					// Counterexample and ElleType are not part of the
					// JSON.
					want := *rep.Anomaly
					want.Counterexample = nil
					want.ElleType = ""
					if !reflect.DeepEqual(back.Anomaly, &want) {
						t.Errorf("JSON round trip changed the report:\n%+v\nwant\n%+v", back.Anomaly, &want)
					}
				}
				an := m["anomaly"].(map[string]any)
				txns := map[string]map[string]any{}
				for _, x := range an["transactions"].([]any) {
					x := x.(map[string]any)
					txns[x["name"].(string)] = x
				}
				want := map[string]struct {
					id, session any
					ops         []any
				}{
					"post": {"post", "alice", []any{
						map[string]any{"kind": "w", "key": "post:1", "value": "lunch?"},
					}},
					"T12": {12.0, 2.0, []any{
						map[string]any{"kind": "r", "key": "post:1", "value": "lunch?"},
						map[string]any{"kind": "w", "key": "reply:1", "value": "yes!"},
						map[string]any{"kind": "w", "key": 7.0, "value": 1.0},
					}},
					"read-thread": {"read-thread", "carol", []any{
						map[string]any{"kind": "r", "key": 7.0, "value": 1.0},
						map[string]any{"kind": "r", "key": "reply:1", "value": "yes!"},
						map[string]any{"kind": "r", "key": "post:1", "value": nil},
					}},
				}
				if len(txns) != len(want) {
					t.Errorf("transactions %v, want %d", txns, len(want))
				}
				for n, w := range want {
					x, ok := txns[n]
					if !ok {
						t.Errorf("no transaction named %q in %v", n, txns)
						continue
					}
					if x["id"] != w.id || x["session"] != w.session {
						t.Errorf("%s: id %#v, session %#v; want %#v, %#v", n, x["id"], x["session"], w.id, w.session)
					}
					for _, f := range []string{"session_position", "index"} {
						if _, ok := x[f].(float64); !ok {
							t.Errorf("%s: %s is %#v, want a number", n, f, x[f])
						}
					}
					if _, ok := x["source"].(string); !ok {
						t.Errorf("%s: source is %#v, want a string", n, x["source"])
					}
					for _, op := range x["ops"].([]any) {
						if op, ok := op.(map[string]any); !ok || len(op) != 3 || op["kind"] != "r" && op["kind"] != "w" {
							t.Errorf("%s: op %#v", n, op)
						}
					}
					// Explain lists every operation; Minimal those that
					// matter, as objects too.
					if name == "explain" && !reflect.DeepEqual(x["ops"], w.ops) {
						t.Errorf("%s: ops %#v\nwant %#v", n, x["ops"], w.ops)
					}
				}
				// Every step: names of listed transactions, a typed key
				// and typed values.
				var steps []any
				for _, c := range an["cycles"].([]any) {
					steps = append(steps, c.([]any)...)
				}
				steps = append(steps, an["edges"].([]any)...)
				sawNull := false
				for _, s := range steps {
					s := s.(map[string]any)
					for _, f := range []string{"from", "to"} {
						if _, ok := txns[s[f].(string)]; !ok && s[f] != "init" {
							t.Errorf("step %v: %s %q is not a listed transaction", s, f, s[f])
						}
					}
					switch s["kind"] {
					case "WR", "WW", "RW":
						for _, f := range []string{"from_value", "to_value"} {
							v, ok := s[f]
							switch v.(type) {
							case string, float64:
							case nil:
								sawNull = sawNull || ok
							default:
								t.Errorf("step %v: %s is %#v", s, f, v)
							}
							if !ok {
								t.Errorf("step %v has no %s", s, f)
							}
							if str, ok := v.(string); ok && strings.HasPrefix(str, `"`) {
								t.Errorf("step %v: %s %q keeps its quotes", s, f, str)
							}
						}
					}
				}
				if !sawNull {
					t.Errorf("no step has the null value read by read-thread: %v", steps)
				}
			})
		}
	}
}

// TestJSONValues checks Value's and ID's JSON forms.
func TestJSONValues(t *testing.T) {
	for _, c := range []struct {
		v    interpret.Value
		json string
		text string
	}{
		{interpret.IntValue(-3), `-3`, `-3`},
		{interpret.StringValue("yes!"), `"yes!"`, `"yes!"`},
		{interpret.StringValue("7"), `"7"`, `"7"`},
		{interpret.StringValue("a\x00\"b"), `"a\u0000\"b"`, `"a\x00\"b"`},
		{interpret.NullValue(), `null`, `null`},
		{interpret.ListValue([]interpret.Value{interpret.IntValue(1), interpret.StringValue("a")}), `[1,"a"]`, `[1 "a"]`},
		{interpret.ListValue(nil), `[]`, `[]`},
		// A keyword of EDN, as the EDN readers keep it.
		{interpret.StringValue(":ok"), `":ok"`, `:ok`},
		{interpret.StringValue(":"), `":"`, `":"`},
		{interpret.StringValue(":1a"), `":1a"`, `":1a"`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.json {
			t.Errorf("%v: JSON %s, %v; want %s", c.v, b, err, c.json)
		}
		var back interpret.Value
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.v) {
			t.Errorf("%s: decoded %#v, %v; want %#v", b, back, err, c.v)
		}
		if c.v.String() != c.text {
			t.Errorf("%#v: text %s, want %s", c.v, c.v.String(), c.text)
		}
	}
	// A step of session order has no values at all.
	b, _ := json.Marshal(interpret.Step{From: "T1", To: "T2", Kind: "SO"})
	if strings.Contains(string(b), "value") {
		t.Errorf("SO step %s has values", b)
	}
}

// stepNames returns the names every step and the constraint of a refer to.
func stepNames(a *interpret.Anomaly) []string {
	var names []string
	var add func(steps []interpret.Step)
	add = func(steps []interpret.Step) {
		for _, s := range steps {
			names = append(names, s.From, s.To)
			add(s.BecauseCycle)
		}
	}
	for _, c := range a.Cycles {
		add(c)
	}
	add(a.Edges)
	if c := a.Constraint; c != nil {
		names = append(names, c.A, c.B)
	}
	return names
}

// TestNames checks that a report names each transaction one way: every
// name in its cycles, edges and constraint is the name of a listed
// transaction (or init), the names are unique, and the text report uses
// them too.
func TestNames(t *testing.T) {
	tests := []struct {
		name    string
		level   level.Level
		history string
		txns    []string // the names, in input order
	}{
		{"integer ids", level.SI, `
{"session": 1, "id": 3, "ops": [["w", 0, 4]]}
{"session": 1, "id": 5, "ops": [["r", 0, 4], ["w", 0, 5]]}
{"session": 2, "id": 8, "ops": [["r", 0, 4], ["w", 0, 10]]}`, []string{"T3", "T5", "T8"}},
		{"no ids: line numbers", level.SER, `
{"session": 1, "ops": [["r", "x", null], ["w", "y", 1]]}
{"session": 2, "ops": [["r", "y", null], ["w", "x", 1]]}`, []string{"T1", "T2"}},
		{"an id init", level.SER, `
{"session": 0, "id": "init", "ops": [["w", "a", 1], ["w", "b", 1]]}
{"session": 1, "id": "alice", "ops": [["r", "a", 1], ["r", "b", 1], ["w", "a", 2]]}
{"session": 2, "id": "bob", "ops": [["r", "a", 1], ["r", "b", 1], ["w", "b", 2]]}`, []string{"init#0", "alice", "bob"}},
		{"an id init and the initial state", level.SI, `
{"session": 0, "id": "init", "ops": [["w", "x", 1]]}
{"session": 1, "id": "r", "ops": [["r", "x", 1], ["r", "y", null]]}
{"session": 1, "id": "w", "ops": [["w", "y", 1]]}
{"session": 2, "id": "s", "ops": [["r", "y", 1], ["r", "x", null]]}`, nil},
		{"ids T2 and 2", level.SER, `
{"session": 3, "id": "T2", "ops": [["r", "z", null], ["w", "u", 1]]}
{"session": 4, "id": 2, "ops": [["r", "u", null], ["w", "z", 1]]}`, []string{"T2#0", "T2#1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := historytest.JSONL(t, tt.history)
			rep, res := minimal(t, h, tt.level)
			for kind, rep := range map[string]*interpret.Report{"minimal": rep, "explain": interpret.Explain(res)} {
				checkNames(t, kind, rep)
				if kind == "minimal" && tt.txns != nil {
					var got []string
					for _, x := range rep.Anomaly.Txns {
						got = append(got, x.Name)
					}
					if !reflect.DeepEqual(got, tt.txns) {
						t.Errorf("%s: transactions %v, want %v", kind, got, tt.txns)
					}
				}
			}
		})
	}
}

// TestNamesWithoutIDs checks the names of transactions that have no id.
func TestNamesWithoutIDs(t *testing.T) {
	b := history.NewBuilder(history.Null, "built")
	x, y := b.Key("x"), b.Key("y")
	b.AddTxn(history.Txn{Session: b.Session("s1")}, []history.Op{{Kind: history.Read, Key: x, Value: history.Null}, {Kind: history.Write, Key: y, Value: 1}})
	b.AddTxn(history.Txn{Session: b.Session("s2")}, []history.Op{{Kind: history.Read, Key: y, Value: history.Null}, {Kind: history.Write, Key: x, Value: 1}})
	rep, res := minimal(t, b.History(), level.SER)
	for kind, rep := range map[string]*interpret.Report{"minimal": rep, "explain": interpret.Explain(res)} {
		checkNames(t, kind, rep)
		var got []string
		for _, x := range rep.Anomaly.Txns {
			got = append(got, x.Name)
		}
		if want := []string{"T0", "T1"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: transactions %v, want %v", kind, got, want)
		}
	}
}

func checkNames(t *testing.T, kind string, rep *interpret.Report) {
	t.Helper()
	a := rep.Anomaly
	listed := map[string]bool{}
	for _, x := range a.Txns {
		if listed[x.Name] || x.Name == "init" {
			t.Errorf("%s: name %q used twice", kind, x.Name)
		}
		listed[x.Name] = true
	}
	for _, n := range stepNames(a) {
		if !listed[n] && n != "init" {
			t.Errorf("%s: %q in a cycle or edge is not a listed transaction %v", kind, n, a.Txns)
		}
	}
	var text, full, dot bytes.Buffer
	rep.WriteText(&text)
	rep.WriteExplanation(&full, false)
	rep.WriteDOT(&dot)
	for n := range listed {
		if !strings.Contains(text.String(), "\n  "+n+" (session") {
			t.Errorf("%s: the text lists no %q:\n%s", kind, n, text.String())
		}
		if !strings.Contains(full.String(), "\n  "+n+" ") {
			t.Errorf("%s: the explanation lists no %q:\n%s", kind, n, full.String())
		}
		if !strings.Contains(dot.String(), "label=<<b>"+n+"</b>") {
			t.Errorf("%s: the picture has no %q:\n%s", kind, n, dot.String())
		}
	}
	if t.Failed() {
		t.Logf("%s:\n%s", kind, full.String())
	}
}

// TestExplainNamesMatchCheck checks that check's quick report and
// explain's minimal one name the same transaction the same way.
func TestExplainNamesMatchCheck(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": 7, "ops": [["r", "x", null], ["w", "y", 1]]}
{"session": 2, "id": 9, "ops": [["r", "y", null], ["w", "x", 1]]}`)
	res, err := check.Check(context.Background(), h, level.SER)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	interpret.Explain(res).WriteText(&b)
	for _, want := range []string{"T7 -RW x-> T9", "\n  T7 (session 1, committed)", "\n  T9 (session 2, committed)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestBigIntegers checks that integers of 2^62 and more in magnitude,
// which a history keeps as named values, are shown as the integers the
// input wrote: in text, in JSON (and back) and in Elle's map.
func TestBigIntegers(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "T1", "ops": [["w", "x", 18446744073709551615], ["w", "y", -9223372036854775808], ["w", "z", "4611686018427387904"]]}
{"session": 2, "id": "T2", "ops": [["r", "x", 18446744073709551615], ["r", "y", null]]}`)
	res, err := check.Check(context.Background(), h, level.SI)
	if err != nil {
		t.Fatal(err)
	}
	rep := interpret.Explain(res)
	var b bytes.Buffer
	rep.WriteText(&b)
	for _, want := range []string{"w(x,18446744073709551615) w(y,-9223372036854775808) w(z,4611686018427387904)", "T2 read y=null, which T1 overwrote with -9223372036854775808"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	js, _ := json.Marshal(rep)
	if !strings.Contains(string(js), `{"kind":"w","key":"x","value":18446744073709551615}`) {
		t.Errorf("JSON: %s", js)
	}
	_, back := decode(t, rep)
	if !reflect.DeepEqual(back.Anomaly.Txns, rep.Anomaly.Txns) {
		t.Errorf("read back %+v\nwant %+v", back.Anomaly.Txns, rep.Anomaly.Txns)
	}
	if v := back.Anomaly.Txns[0].Ops[0].Value; v.Kind() != interpret.KindInt || v.Any() != json.Number("18446744073709551615") {
		t.Errorf("read back %v (kind %v, %#v)", v, v.Kind(), v.Any())
	}
	e, _ := json.Marshal(interpret.ElleResult(h, []*check.Result{res}, true))
	if !strings.Contains(string(e), `["w","x",18446744073709551615]`) {
		t.Errorf("Elle's map: %s", e)
	}
}

// TestJSONOpsNeverNull checks that every transaction of a report lists
// its operations as a JSON array, [] when none are shown: a transaction
// of the checker's evidence that has no operations (only its place in
// its session joins the cycle), and the reports of the examples of the
// anomalies found.
func TestJSONOpsNeverNull(t *testing.T) {
	h := historytest.JSONL(t, `
{"session": 1, "id": "w", "ops": [["w", "x", 1]]}
{"session": 2, "id": "saw", "ops": [["r", "x", 1]]}
{"session": 2, "id": "empty", "ops": []}
{"session": 2, "id": "missed", "ops": [["r", "x", null]]}`)
	ctx := context.Background()
	res, err := check.Check(ctx, h, level.SER)
	if err != nil {
		t.Fatal(err)
	}
	explained := interpret.Explain(res)
	rep, _ := minimal(t, h, level.SER)
	if rep.Anomalies, err = interpret.Every(ctx, h, res, rep); err != nil {
		t.Fatal(err)
	}
	found, err := interpret.FoundReports(ctx, h, res, rep)
	if err != nil {
		t.Fatal(err)
	}
	reports := append([]*interpret.Report{explained, rep}, found...)
	empty := 0
	for _, r := range reports {
		m, _ := decode(t, r)
		for _, x := range m["anomaly"].(map[string]any)["transactions"].([]any) {
			txn := x.(map[string]any)
			ops, ok := txn["ops"].([]any)
			if !ok {
				t.Errorf("%s: ops %#v, want an array", txn["name"], txn["ops"])
			}
			if ok && len(ops) == 0 {
				empty++
			}
		}
	}
	if empty == 0 {
		t.Errorf("no report shows a transaction without operations: the test tests nothing")
	}
}
