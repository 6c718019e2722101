package format_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/register"
)

// Histories of completions alone (Elle's unit tests write them so), of
// events without :process (Elle's paper example), and of transactions
// mixed with other client operations are read, and Info says what was
// inferred or left out.
func TestReadJepsenInferred(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // the history, as jdump writes it
		info      format.Info
	}{
		{"completions only",
			`{:type :ok, :value [[:append :x 1]], :process 0, :index 1}
{:type :info, :value [[:append :x 2] [:r :y nil]], :process 1, :index 3}
{:type :ok, :value [[:r :x [1 2]]], :process 0, :index 5}`,
			`init null
session 0: 0 2
session 1: 1
0 "1" s0 committed [-,1]: w(:x,1)
1 "3" s1 unknown: w(:x,2)
2 "5" s0 committed [-,5]: r(:x,2)[1 2]
`, format.Info{Format: format.EDN, NoInvoke: 3}},
		{"no process",
			`{:index 0, :type :invoke, :value [[:append 1 1]]}
{:index 1, :type :ok, :value [[:append 1 1]]}
{:index 2, :type :ok, :value [[:r 1 [1]]]}
{:index 3, :type :invoke, :value [[:append 1 2]]}`,
			`init null
session no-process-2: 0
session no-process-3: 1
session no-process-4: 2
0 "1" sno-process-2 committed [0,1]: w(1,1)
1 "2" sno-process-3 committed [-,2]: r(1,1)[1]
2 "3" sno-process-4 unknown [3,-]: w(1,2)
`, format.Info{Format: format.EDN, NoProcess: 4, NoInvoke: 1}},
		{"other operations",
			`{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}
{:type :invoke, :f :cas, :value [1 2], :process 1, :time 2}
{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 3}
{:type :fail, :f :cas, :value [1 2], :process 1, :time 4}
{:type :invoke, :f :read, :value nil, :process 1, :time 5}
{:type :ok, :f :read, :value 1, :process 1, :time 6}
{:type :info, :f :kill, :process :nemesis, :time 7}`,
			`init null
session 0: 0
0 "" s0 committed [1,3]: w(:x,1)
`, format.Info{Format: format.EDN, SkippedOps: 1, OtherOps: map[string]int{"cas": 1, "read": 1}}},
	}
	for _, tc := range tests {
		for _, f := range []format.Format{format.EDN, format.ElleJSON} {
			src := tc.src
			if f == format.ElleJSON {
				var buf bytes.Buffer
				if err := ednToJSON(&buf, src); err != nil {
					t.Fatal(err)
				}
				src = buf.String()
			}
			h, info, err := format.ReadInfo(strings.NewReader(src), "h", f)
			if err != nil {
				t.Errorf("%s, %s: %v", tc.name, f, err)
				continue
			}
			want := tc.want
			if f == format.ElleJSON {
				want = strings.ReplaceAll(want, ":x", "x") // a string, not a keyword
			}
			if got := formattest.Jdump(h, false); got != want {
				t.Errorf("%s, %s: got\n%s\nwant\n%s", tc.name, f, got, want)
			}
			wantInfo := tc.info
			wantInfo.Format = f
			if info.Format != wantInfo.Format || info.SkippedOps != wantInfo.SkippedOps || info.NoProcess != wantInfo.NoProcess ||
				info.NoInvoke != wantInfo.NoInvoke || !maps.Equal(info.OtherOps, wantInfo.OtherOps) {
				t.Errorf("%s, %s: info %+v, want %+v", tc.name, f, *info, wantInfo)
			}
		}
	}
}

// ednToJSON rewrites the simple EDN events of the tests above as JSON.
func ednToJSON(w *bytes.Buffer, src string) error {
	r := strings.NewReplacer(":type ", `"type": `, ":f ", `"f": `, ":value ", `"value": `, ":process ", `"process": `,
		":time ", `"time": `, ":index ", `"index": `, ":invoke", `"invoke"`, ":ok", `"ok"`, ":fail", `"fail"`, ":info", `"info"`,
		":append", `"append"`, ":r ", `"r" `, ":w ", `"w" `, ":x", `"x"`, ":y", `"y"`, ":txn", `"txn"`, ":cas", `"cas"`,
		":read", `"read"`, ":kill", `"kill"`, ":nemesis", `"nemesis"`, "nil", "null", "] [", "], [", " 1 2]", " 1, 2]")
	s := r.Replace(src)
	s = strings.NewReplacer(`"append" `, `"append", `, `"r" `, `"r", `, `"w" `, `"w", `, `"x" `, `"x", `, `"y" `, `"y", `, "1 [", "1, [", "1 1]", "1, 1]", "1 2]", "1, 2]").Replace(s)
	if strings.Contains(s, ":") && strings.Contains(s, " :") {
		return errors.New("ednToJSON: EDN left in " + s)
	}
	w.WriteString(s)
	return nil
}

func TestReadRegisterOps(t *testing.T) {
	const edn = `{:type :invoke, :f :write, :value [:x 1], :process 0, :index 0}
{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 1, :index 1}
{:type :ok, :f :write, :value [:x 1], :process 0, :index 2}
{:type :ok, :f :txn, :value [[:r 1 nil]], :process 1, :index 3}
{:type :invoke, :f :cas, :value [:x [1 2]], :process 0, :index 4}
{:type :ok, :f :read, :value [:x 2], :process 2, :index 5}
{:type :fail, :f :cas, :value [:x [1 2]], :process 0, :index 6}
{:type :invoke, :f :read, :value [:x nil], :process 0, :index 7}`
	want := []register.Op{
		{Process: 0, Kind: register.Write, Key: "x", Value: 1, Call: 0, Return: 2, Line: 1, RetLine: 3},
		{Process: 0, Kind: register.CAS, Key: "x", Old: 1, New: 2, Outcome: register.Fail, Call: 4, Return: 6, Line: 5, RetLine: 7},
		{Process: 2, Kind: register.Read, Key: "x", Value: 2, Call: register.NoCall, Return: 5, Line: 6, RetLine: 6},
		{Process: 0, Kind: register.Read, Key: "x", Outcome: register.Info, Call: 7, Return: register.NoReturn, Line: 8},
	}
	ops, info, err := format.ReadRegisterOps(context.Background(), strings.NewReader(edn), "h", format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != len(want) {
		t.Fatalf("got %d operations, want %d: %+v", len(ops), len(want), ops)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Errorf("op %d: got %+v, want %+v", i, ops[i], want[i])
		}
	}
	if info.Format != format.EDN || info.OtherOps["txn"] != 1 || info.NoInvoke != 1 {
		t.Errorf("info %+v", *info)
	}

	// Native transactions, as isocheck run --workload lwt records them.
	const native = `{"session":2,"id":"2/0","ops":[["r",1,null],["w",1,31]],"start":10,"end":20}
{"session":0,"id":"0/0","ops":[["r",1,31]],"start":15,"end":25}
{"session":0,"id":"0/1","status":"aborted","ops":[["r",1,31],["w",1,40]],"start":26,"end":27}
{"session":1,"id":"1/0","status":"unknown","ops":[["r",1,31],["w",1,41]],"start":30}
{"session":1,"id":"1/1","ops":[["w",2,5]],"start":31,"end":32}
`
	want = []register.Op{
		{Process: 2, Kind: register.CAS, Key: "1", Old: register.Nil, New: 31, Call: 10, Return: 20, Line: 1, RetLine: 1},
		{Process: 0, Kind: register.Read, Key: "1", Value: 31, Call: 15, Return: 25, Line: 2, RetLine: 2},
		{Process: 1, Kind: register.CAS, Key: "1", Old: 31, New: 41, Outcome: register.Info, Call: 30, Return: register.NoReturn, Line: 4, RetLine: 4},
		{Process: 1, Kind: register.Write, Key: "2", Value: 5, Call: 31, Return: 32, Line: 5, RetLine: 5},
	}
	for _, f := range []format.Format{format.Auto, format.JSONL} {
		ops, info, err := format.ReadRegisterOps(context.Background(), strings.NewReader(native), "n", f)
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) != len(want) || info.Format != format.JSONL {
			t.Fatalf("%s: got %d operations (%s), want %d: %+v", f, len(ops), info.Format, len(want), ops)
		}
		for i := range want {
			if ops[i] != want[i] {
				t.Errorf("%s: op %d: got %+v, want %+v", f, i, ops[i], want[i])
			}
		}
	}
}

func TestReadRegisterOpsErrors(t *testing.T) {
	tests := []struct {
		f        format.Format
		src, msg string
	}{
		{format.EDN, "{:type :invoke, :f :txn, :value [], :process 0}", "h:1: no register operations (:read, :write, :cas) to check, only 1 :txn; isocheck check checks transactions (:txn)"},
		{format.EDN, "{:type :invoke, :process 0}", "h:1: event without :f (want :read, :write or :cas)"},
		{format.EDN, "{:type :invoke, :f :cas, :value [1], :process 0}", "h:1: :value of a cas must be [old new], not a list of 1"},
		{format.EDN, "{:type :invoke, :f :write, :value [1 2 3], :process 0}", "h:1: :value of an independent write must be [key value], not a list of 3"},
		{format.EDN, "{:type :invoke, :f :write, :value :a, :process 0}", "h:1: write value: want an integer or nil, not :a"},
		{format.EDN, "{:type :invoke, :f :write, :value -9223372036854775808, :process 0}", "h:1: write value: -9223372036854775808 is reserved for nil"},
		{format.ElleJSON, `{"type": "invoke", "f": "read", "value": [1.5, null], "process": 0}`, "h:1: a key must be an integer, string or keyword, not 1.5"},
		{format.Text, "r(1,1,1,1)", "h: a text history holds no register operations"},
		{format.JSONL, `{"session":0,"ops":[["append",1,1]],"start":1,"end":2}`, "h: a history of lists holds no register operations"},
		{format.JSONL, `{"session":0,"ops":[["w",1,"a"]],"start":1,"end":2}`, `h:1: the value "a" is not an integer`},
	}
	for _, tc := range tests {
		_, _, err := format.ReadRegisterOps(context.Background(), strings.NewReader(tc.src), "h", tc.f)
		var fe *format.Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %q: got %v, want %s", tc.f, tc.src, err, tc.msg)
		}
	}
	dir := t.TempDir()
	_, _, err := format.ReadRegisterOpsFile(context.Background(), dir, format.Auto)
	var fe *format.Error
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "is a directory, which holds no register operations") {
		t.Errorf("a directory: got %v", err)
	}
}

// FuzzReadRegisterOps reads Jepsen histories for their register
// operations: every error gives a line, and what is read is consistent.
func FuzzReadRegisterOps(f *testing.F) {
	f.Add([]byte(`{:type :invoke, :f :cas, :value [:x [nil 1]], :process 0, :time 1} {:type :ok, :f :cas, :value [:x [nil 1]], :process 0, :time 2}`))
	f.Add([]byte(`{:type :ok, :f :write, :value 1} {:type :invoke, :f :read, :process 3, :index 1} {:type :ok, :f :read, :value 1, :process 3, :index 0}`))
	f.Add([]byte(`[{"type": "invoke", "f": "read", "value": ["k", null], "process": 0}, {"type": "ok", "f": "read", "value": ["k", 1], "process": 0}]`))
	f.Add([]byte(`{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0} {:type :invoke, :f :read, :process :nemesis}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range []format.Format{format.EDN, format.ElleJSON} {
			ops, info, err := format.ReadRegisterOps(context.Background(), bytes.NewReader(data), "fuzz", fm)
			if err != nil {
				if e := formattest.CheckError(t, err); e.Line < 1 {
					t.Fatalf("%s: error without a line: %v", fm, err)
				}
				continue
			}
			if info.Format != fm {
				t.Fatalf("read as %s, not %s", info.Format, fm)
			}
			for i, o := range ops {
				if o.Line < 1 || o.Outcome > register.Info || o.Kind > register.CAS ||
					(o.Outcome == register.Info) != (o.Return == register.NoReturn) || o.Process < -1 {
					t.Fatalf("%s: op %d: %+v", fm, i, o)
				}
			}
		}
	})
}

// TestReadRegisterFaults: the nemesis's events of a register history
// are kept in Info.Faults, in order, an invocation and its completion as
// one (the completion says what was done), at their :time when the
// operations are timed by :time, without a time when they are timed by
// :index; native JSONL's fault lines are kept with their times.
func TestReadRegisterFaults(t *testing.T) {
	const edn = `{:type :invoke, :f :write, :value 1, :time 10, :process 0, :index 0}
{:type :info, :f :start-partition, :value nil, :time 20, :process :nemesis, :index 1}
{:type :info, :f :start-partition, :value [:isolated {"n1" #{"n2"}}], :time 25, :process :nemesis, :index 2}
{:type :ok, :f :write, :value 1, :time 30, :process 0, :index 3}
{:type :info, :f :stop-partition, :value nil, :time 40, :process :nemesis, :index 4}
{:type :info, :f :stop-partition, :value :network-healed, :time 45, :process :nemesis, :index 5}
`
	const jsonl = `{"session":0,"id":"0/0","ops":[["r",1,null],["w",1,5]],"start":1,"end":2}
{"nemesis":"partition 0-2 1-2","time":3}
{"session":1,"id":"1/0","ops":[["r",1,5]],"start":4,"end":6}
`
	tests := []struct {
		name, src string
		want      []string
		times     []int64
	}{
		{"edn by :time", edn, []string{`start-partition [:isolated {"n1" #{"n2"}}]`, "stop-partition :network-healed"}, []int64{20, 40}},
		{"edn by :index", strings.ReplaceAll(edn, ":time", ":at"), []string{`start-partition [:isolated {"n1" #{"n2"}}]`, "stop-partition :network-healed"}, []int64{history.NoTime, history.NoTime}},
		{"jsonl", jsonl, []string{"partition 0-2 1-2"}, []int64{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, info, err := format.ReadRegisterOps(context.Background(), strings.NewReader(tt.src), "h", format.Auto)
			if err != nil {
				t.Fatal(err)
			}
			var what []string
			var times []int64
			for _, f := range info.Faults {
				what, times = append(what, f.What), append(times, f.Time)
			}
			if !slices.Equal(what, tt.want) || !slices.Equal(times, tt.times) {
				t.Errorf("faults %q at %v, want %q at %v", what, times, tt.want, tt.times)
			}
		})
	}
}
