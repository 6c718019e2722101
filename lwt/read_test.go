package lwt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
)

const ednSample = `; a Jepsen cas-register history
[{:type :invoke, :f :write, :value 1, :time 0, :process 0, :index 0}
 {:type :ok, :f :write, :value 1, :time 5, :process 0, :index 1}
 {:type :invoke, :f :cas, :value [1 2], :time 9, :process 2}
 {:type :invoke, :f :read, :value nil, :time 10, :process 1}
 {:type :info, :f :start, :value nil, :time 11, :process :nemesis}
 #jepsen.history.Op{:type :ok, :f :read, :value 1, :time 12, :process 1}
 {:type :ok, :f :cas, :value [1 2], :time 13, :process 2}
 {:type :invoke, :f :cas, :value [1 3], :time 14, :process 1}
 {:type :fail, :f :cas, :value [1 3], :time 15, :process 1}
 {:type :invoke, :f :write, :value 4, :time 16, :process 0}
 {:type :info, :f :write, :value 4, :time 17, :process 0, :error :timeout}
 #_{:type :invoke :f :read :process 9}
 {:type :invoke, :f :read, :value nil, :time 18, :process 3}]
`

const jsonlSample = `{"process":0,"type":"invoke","f":"write","value":1,"time":0}
{"process":0,"type":"ok","f":"write","value":1,"time":5}
{"process":2,"type":"invoke","f":"cas","value":[1,2],"time":9}
{"process":1,"type":"invoke","f":"read","value":null,"time":10}
{"process":"nemesis","type":"info","f":"start","time":11}
{"process":1,"type":"ok","f":"read","value":1,"time":12}
{"process":2,"type":"ok","f":"cas","value":[1,2],"time":13}
{"process":1,"type":"invoke","f":"cas","value":[1,3],"time":14}
{"process":1,"type":"fail","f":"cas","value":[1,3],"time":15}

{"process":0,"type":"invoke","f":"write","value":4,"time":16}
{"process":0,"type":"info","f":"write","value":4,"time":17}
{"process":3,"type":"invoke","f":"read","value":null,"time":18}
`

var sampleOps = []Op{
	{Process: 0, Kind: register.Write, Value: 1, Call: 0, Return: 5},
	{Process: 2, Kind: register.CAS, Old: 1, New: 2, Call: 9, Return: 13},
	{Process: 1, Kind: register.Read, Value: 1, Call: 10, Return: 12},
	{Process: 1, Kind: register.CAS, Old: 1, New: 3, Call: 14, Return: 15, Outcome: register.Fail},
	{Process: 0, Kind: register.Write, Value: 4, Call: 16, Return: Never, Outcome: register.Info},
	{Process: 3, Kind: register.Read, Call: 18, Return: Never, Outcome: register.Info},
}

func stripLines(ops []Op) []Op {
	out := append([]Op(nil), ops...)
	for i := range out {
		out[i].Line, out[i].RetLine = 0, 0
	}
	return out
}

func sameOps(t *testing.T, got, want []Op) {
	t.Helper()
	got = stripLines(got)
	if len(got) != len(want) {
		t.Fatalf("got %d ops, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("op %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// readWith reads src as a stream with opts.
func readWith(t *testing.T, src, name string, opts ReadOptions) ([]Op, *format.Info) {
	t.Helper()
	ops, info, err := ReadHistoryContext(context.Background(), strings.NewReader(src), name, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ops, info
}

// withoutFailed is ops less those that failed.
func withoutFailed(ops []Op) []Op {
	var out []Op
	for _, o := range ops {
		if o.Outcome != register.Fail {
			out = append(out, o)
		}
	}
	return out
}

func TestReadSamples(t *testing.T) {
	for name, src := range map[string]string{"edn": ednSample, "jsonl": jsonlSample} {
		t.Run(name, func(t *testing.T) {
			ops, info := readWith(t, src, name, ReadOptions{Fail: FailCompared})
			sameOps(t, ops, sampleOps)
			if res := checkOps(t, ops); !res.OK() {
				t.Errorf("sample: %v", res)
			}
			if info.SkippedOps != 1 {
				t.Errorf("skipped %d events, want 1 (the nemesis's)", info.SkippedOps)
			}
			ops, err := ReadBytes([]byte(src), name) // failed operations left out
			if err != nil {
				t.Fatal(err)
			}
			sameOps(t, ops, withoutFailed(sampleOps))
		})
	}
	ops, _ := ReadBytes([]byte(ednSample), "x")
	if ops[1].Line != 4 || ops[1].RetLine != 8 {
		t.Errorf("cas lines %d,%d; want 4,8", ops[1].Line, ops[1].RetLine)
	}
}

func TestReadIndependent(t *testing.T) {
	src := `{:type :invoke, :f :cas, :value [:x [nil 1]], :process 0}
{:type :invoke, :f :read, :value [7 nil], :process 1}
{:type :ok, :f :cas, :value [:x [nil 1]], :process 0}
{:type :ok, :f :read, :value [7 nil], :process 1}
{:type :invoke, :f :write, :value ["y" 5], :process 0}
{:type :ok, :f :write, :value ["y" 5], :process 0}
{:type :invoke, :f :read, :value nil, :process 1}
{:type :ok, :f :read, :value [:x 1], :process 1}
`
	ops, err := ReadBytes([]byte(src), "ind.edn")
	if err != nil {
		t.Fatal(err)
	}
	// No :time: real time is the position of the event.
	sameOps(t, ops, []Op{
		{Process: 0, Kind: register.CAS, Key: "x", Old: Nil, New: 1, Call: 0, Return: 2},
		{Process: 1, Kind: register.Read, Key: "7", Value: Nil, Call: 1, Return: 3},
		{Process: 0, Kind: register.Write, Key: "y", Value: 5, Call: 4, Return: 5},
		{Process: 1, Kind: register.Read, Key: "x", Value: 1, Call: 6, Return: 7},
	})
	if res := checkOps(t, ops); !res.OK() || res.Keys != 3 {
		t.Errorf("got %v with %d keys", res, res.Keys)
	}
	j := `{"process":0,"type":"invoke","f":"cas","key":"x","value":[null,1]}
{"process":0,"type":"ok","f":"cas","key":"x","value":[null,1]}
{"process":1,"type":"invoke","f":"read","value":["x",null]}
{"process":1,"type":"ok","f":"read","value":["x",1]}
`
	ops, err = ReadBytes([]byte(j), "ind.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sameOps(t, ops, []Op{
		{Process: 0, Kind: register.CAS, Key: "x", Old: Nil, New: 1, Call: 0, Return: 1},
		{Process: 1, Kind: register.Read, Key: "x", Value: 1, Call: 2, Return: 3},
	})
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ src, line, msg string }{
		{"{:type :invoke, :f :read, :process 0}\n{:type :ok :f :read :process 0 :value \"a\"}", ":2:", "want an integer or nil"},
		{"{:type :invoke, :f :read, :process 0}\n\n{:type :invoke, :f :read, :process 0}", ":3:", "invoked an operation before its invocation at line 1"},
		{"{:type :invoke, :f :cas, :value 3, :process 0}", ":1:", "[old new]"},
		{"\n\n{:type :invoke, :f :cas, :value [1 2] :process 0", ":3:", "missing"},
		{"{:type :invoke :f}", ":1:", "even number"},
		{"{:f :read, :process 0}", ":1:", "without :type"},
		{"{:type :invoke, :process 0}", ":1:", "event without :f"},
		{"{:type :invoke, :f :add, :process 0}", ":1:", "no register operations (:read, :write, :cas) to check, only 1 :add"},
		{"{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0}", ":1:", "isocheck check checks transactions"},
		{"{:type :invoke, :f :write, :value 99999999999999999999, :process 0}", ":1:", "want an integer or nil, not 99999999999999999999"},
		{"{:type :invoke, :f :write, :value 1x, :process 0}", ":1:", "bad number"},
		{"[{:type :invoke, :f :read, :process 0}] {}", ":1:", "unexpected data after the history vector"},
		{`{"process":0,"type":"invoke","f":"write","value":1}` + "\n" + `{"process":0,"type":"ok","f":"read"}`, ":2:", "does not match"},
		{`{"process":0,"type":"invoke","f":"write","value":1}` + "\n" + `{"process":0, oops}`, ":2:", "bad JSON"},
		{`{"session":0,"ops":[["r",1,null],["w",2,3]],"start":1,"end":2}`, ":1:", "touches keys 1 and 2"},
		{`{"session":0,"ops":[["w",1,1],["r",1,1]],"start":1,"end":2}`, ":1:", "not a register operation"},
		{`{"session":0,"ops":[["w",1,1]]}`, ":1:", "no start or end"},
		{strings.Repeat("[", 100), ":1:", "nested deeper"},
	}
	for _, tc := range tests {
		_, err := ReadBytes([]byte(tc.src), "h")
		var fe *format.Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "h"+tc.line) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want %s ... %s", tc.src, err, tc.line, tc.msg)
		}
	}
}

// Writing and reading back gives the same operations and verdict.
func TestRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		inj := Injection(seed % 4)
		ops, _ := Generate(GenConfig{Processes: 5, Ops: 300, Keys: 1 + int(seed%3), Seed: seed, ReadFrac: 0.3, WriteFrac: 0.1, CASHit: 0.5, InfoFrac: 0.05, Inject: inj})
		want := checkOps(t, ops)
		for name, write := range map[string]func(*bytes.Buffer, []Op) error{
			"edn":   func(b *bytes.Buffer, o []Op) error { return WriteEDN(b, o) },
			"jsonl": func(b *bytes.Buffer, o []Op) error { return WriteJSONL(b, o) },
		} {
			var buf bytes.Buffer
			if err := write(&buf, ops); err != nil {
				t.Fatal(err)
			}
			back, _ := readWith(t, buf.String(), name, ReadOptions{Fail: FailCompared})
			if got := checkOps(t, back); got.OK() != want.OK() {
				t.Errorf("%s seed %d: %v after the round trip, %v before", name, seed, got, want)
			}
			if len(back) != len(ops) {
				t.Errorf("%s seed %d: %d ops back, %d written", name, seed, len(back), len(ops))
			}
		}
	}
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte(ednSample))
	f.Add([]byte(jsonlSample))
	f.Add([]byte(`{:type :invoke, :f :cas, :value [:x [nil 1]], :process 0} {:type :ok, :f :cas, :value [:x [nil 1]], :process 0}`))
	f.Add([]byte(`{:type :ok, :f :write, :value 1} {:type :ok, :f :read, :value 1, :process 3}`))
	f.Add([]byte(`{"session":0,"ops":[["r",1,null],["w",1,3]],"start":1,"end":2}`))
	f.Add([]byte(`#{1 2} #_ 3 \a "s\n" 1.5 -3N (1 2)`))
}

// fuzzCheck checks what was read when it is small (the exact search is
// exponential in the worst case).
func fuzzCheck(t *testing.T, ops []Op, err error) {
	if err != nil {
		// Every error is the input's; one of the input as a whole only
		// when its format cannot be told.
		var fe *format.Error
		if !errors.As(err, &fe) {
			t.Fatalf("not a *format.Error: %v", err)
		}
		if fe.Line < 1 && fe.Offset < 0 && !strings.Contains(fe.Msg, "format") {
			t.Fatalf("error without a position: %v", err)
		}
		return
	}
	if len(ops) <= 12 {
		res := checkOps(t, ops)
		_ = res.String()
	}
}

// FuzzReadHistory checks that reading a stream a byte at a time gives what
// reading it whole does.
func FuzzReadHistory(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte("\n\n  " + jsonlSample))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := ReadBytes(data, "fuzz")
		got, err := ReadHistory(iotest.OneByteReader(bytes.NewReader(data)), "fuzz")
		fuzzCheck(t, got, err)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("streamed: %v; whole: %v", err, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("streamed %d ops, whole %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("op %d: streamed %+v, whole %+v", i, got[i], want[i])
			}
		}
	})
}

// Real time comes from :time whatever the order of the events in the file
// (issue 8): here the read's events come first in the file but last in
// time, which is linearizable; in file order it would not be.
func TestReadTimeOutOfFileOrder(t *testing.T) {
	for name, src := range map[string]string{
		"edn": `{:type :invoke, :f :read, :value nil, :time 20, :process 1}
{:type :ok, :f :read, :value 1, :time 21, :process 1}
{:type :invoke, :f :write, :value 1, :time 0, :process 0}
{:type :ok, :f :write, :value 1, :time 5, :process 0}
`,
		"jsonl": `{"process":1,"type":"invoke","f":"read","value":null,"time":20}
{"process":1,"type":"ok","f":"read","value":1,"time":21}
{"process":0,"type":"invoke","f":"write","value":1,"time":0}
{"process":0,"type":"ok","f":"write","value":1,"time":5}
`,
	} {
		ops, err := ReadBytes([]byte(src), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameOps(t, ops, []Op{
			{Process: 1, Kind: register.Read, Value: 1, Call: 20, Return: 21},
			{Process: 0, Kind: register.Write, Value: 1, Call: 0, Return: 5},
		})
		if res := checkOps(t, ops); !res.OK() {
			t.Errorf("%s: %v, want linearizable", name, res)
		}
	}
}

// Unusable times are an input error naming the line, unless every event
// has an :index to order by.
func TestReadClock(t *testing.T) {
	const (
		w0 = "{:type :invoke, :f :write, :value 1, :process 0"
		w1 = "{:type :ok, :f :write, :value 1, :process 0"
		r0 = "{:type :invoke, :f :read, :process 1"
		r1 = "{:type :ok, :f :read, :value 1, :process 1"
	)
	tests := []struct {
		name string
		src  string
		err  string     // in the error, or "" for none
		want [][2]int64 // Call, Return of each op
	}{
		{"time missing on one event",
			w0 + " :time 1}\n" + w1 + " :time 2}\n" + r0 + "}\n" + r1 + " :time 9}\n",
			"h:3: event without :time, though others have one (line 1)", nil},
		{"completion before invocation",
			w0 + " :time 5}\n" + w1 + " :time 3}\n",
			"h:2: the completion's :time 3 is before its invocation's :time 5 at line 1", nil},
		{"index when time is missing",
			w0 + " :time 1, :index 0}\n" + w1 + " :index 1}\n" + r0 + " :time 7, :index 2}\n" + r1 + " :time 8, :index 3}\n",
			"", [][2]int64{{0, 1}, {2, 3}}},
		{"index when time runs backwards",
			w0 + " :time 5, :index 0}\n" + w1 + " :time 3, :index 1}\n",
			"", [][2]int64{{0, 1}}},
		{"index runs backwards too",
			w0 + " :index 4}\n" + w1 + " :index 1, :time 1}\n",
			"h:2: the completion's :index 1 is before its invocation's :index 4 at line 1", nil},
		{"index alone runs backwards",
			w0 + " :index 4}\n" + w1 + " :index 1}\n",
			"h:2: the completion's :index 1 is before its invocation's :index 4 at line 1", nil},
		{"no clock: file positions",
			w0 + "}\n" + r0 + "}\n" + w1 + "}\n" + r1 + "}\n",
			"", [][2]int64{{0, 2}, {1, 3}}},
	}
	for _, tc := range tests {
		ops, err := ReadBytes([]byte(tc.src), "h")
		if tc.err != "" {
			var fe *format.Error
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(ops) != len(tc.want) {
			t.Errorf("%s: %d ops, want %d", tc.name, len(ops), len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if ops[i].Call != w[0] || ops[i].Return != w[1] {
				t.Errorf("%s: op %d at [%d,%d], want %v", tc.name, i, ops[i].Call, ops[i].Return, w)
			}
		}
	}
}

// A reader stops once its context ends, with an error that says so.
func TestReadContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := ReadHistoryContext(ctx, &zeros{}, "z", ReadOptions{})
	if !progress.Stopped(err) {
		t.Errorf("got %v, want a stop", err)
	}
	path := filepath.Join(t.TempDir(), "h.edn")
	if err := os.WriteFile(path, []byte(ednSample), 0o666); err != nil {
		t.Fatal(err)
	}
	tr := progress.NewTracker()
	ops, _, err := ReadFileContext(progress.WithTracker(context.Background(), tr), path, ReadOptions{Fail: FailCompared})
	if err != nil {
		t.Fatal(err)
	}
	sameOps(t, ops, sampleOps)
	if s := tr.Snapshot(); s.Stage != "parse" || s.Done != int64(len(ednSample)) || s.Total != s.Done {
		t.Errorf("progress %+v", s)
	}
	if _, _, err := ReadFileContext(ctx, path, ReadOptions{}); !progress.Stopped(err) {
		t.Errorf("got %v, want a stop", err)
	}
}

// zeros reads as an endless run of zero bytes, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// Reading an endless input stops early (issue 8: isocheck lwt /dev/zero
// ran out of memory): zero bytes are no history.
func TestReadEndless(t *testing.T) {
	z := &zeros{}
	_, err := ReadHistory(z, "zero")
	var fe *format.Error
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "zero: a dbcop history holds no register operations") {
		t.Errorf("got %v", err)
	}
	if z.n > 1<<20 {
		t.Errorf("read %d bytes", z.n)
	}
	if _, _, err := ReadHistoryContext(context.Background(), z, "zero", ReadOptions{Format: format.EDN}); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("as EDN: got %v", err)
	}
}

// A failed operation did not happen (Jepsen, Knossos) unless FailCompared
// asks for Porcupine's etcd model, where a failed CAS compared and found
// another value: here the register holds 1 throughout the failed cas(1,2).
func TestReadFailMeaning(t *testing.T) {
	const src = `{:type :invoke, :f :write, :value 1, :process 0}
{:type :ok, :f :write, :value 1, :process 0}
{:type :invoke, :f :cas, :value [1 2], :process 1}
{:type :fail, :f :cas, :value [1 2], :process 1}
{:type :invoke, :f :write, :value 3, :process 1}
{:type :fail, :f :write, :value 3, :process 1}
{:type :invoke, :f :read, :value nil, :process 2}
{:type :ok, :f :read, :value 1, :process 2}
`
	tests := []struct {
		fail FailMeaning
		ops  int
		ok   bool
	}{
		{FailAbsent, 2, true},
		{FailCompared, 4, false},
	}
	for _, tc := range tests {
		ops, _ := readWith(t, src, "f.edn", ReadOptions{Fail: tc.fail})
		if len(ops) != tc.ops {
			t.Errorf("%s: %d operations, want %d", tc.fail, len(ops), tc.ops)
		}
		if res := checkOps(t, ops); res.OK() != tc.ok {
			t.Errorf("%s: %v", tc.fail, res)
		}
	}
	for _, s := range []string{"absent", "compared"} {
		if m, err := ParseFailMeaning(s); err != nil || m.String() != s {
			t.Errorf("ParseFailMeaning(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseFailMeaning("ignored"); err == nil {
		t.Error("ParseFailMeaning(ignored): no error")
	}
}

// Completions without invocations (as Elle's tests write histories) and
// events without :process are read; an operation without an invocation
// may have been invoked any time before it returned, so here the read of
// 1 that returned before the write of 1 did is linearizable.
func TestReadCompletionsOnly(t *testing.T) {
	const src = `{:type :ok, :f :read, :value 1, :process 3}
{:type :ok, :f :write, :value 1}
{:type :invoke, :f :read, :value nil}
{:type :ok, :f :read, :value 1}
`
	ops, info := readWith(t, src, "c.edn", ReadOptions{})
	sameOps(t, ops, []Op{
		{Process: 3, Kind: register.Read, Value: 1, Call: math.MinInt64, Return: 0},
		{Process: -1, Kind: register.Write, Value: 1, Call: math.MinInt64, Return: 1},
		{Process: -1, Kind: register.Read, Value: 1, Call: 2, Return: 3},
	})
	if info.NoInvoke != 2 || info.NoProcess != 3 {
		t.Errorf("NoInvoke %d, NoProcess %d; want 2, 3", info.NoInvoke, info.NoProcess)
	}
	if res := checkOps(t, ops); !res.OK() {
		t.Errorf("%v", res)
	}
	if s := ops[1].String(); s != "write 1 ok at [?,1] (line 2)" {
		t.Errorf("String: %q", s)
	}
}

// elle-cli's JSON (one array of events, spaces after colons) reads as EDN
// does, detected or named.
func TestReadElleJSON(t *testing.T) {
	const src = `[{"type": "invoke", "f": "write", "value": 1, "process": 0, "time": 1},
 {"type": "ok", "f": "write", "value": 1, "process": 0, "time": 2},
 {"type": "invoke", "f": "cas", "value": [1, 2], "process": 1, "time": 3},
 {"type": "ok", "f": "cas", "value": [1, 2], "process": 1, "time": 4}]
`
	want := []Op{
		{Process: 0, Kind: register.Write, Value: 1, Call: 1, Return: 2},
		{Process: 1, Kind: register.CAS, Old: 1, New: 2, Call: 3, Return: 4},
	}
	for _, f := range []format.Format{format.Auto, format.ElleJSON, format.JSONL} {
		ops, info := readWith(t, src, "e.json", ReadOptions{Format: f})
		sameOps(t, ops, want)
		if info.Format != format.ElleJSON {
			t.Errorf("%s: read as %s", f, info.Format)
		}
	}
}

// Error messages cut huge tokens short (issue 8: a 50 MB number made a
// 52 MB message).
func TestReadHugeToken(t *testing.T) {
	huge := strings.Repeat("7", 8<<20)
	word := strings.Repeat("é", 4<<20)
	tests := []struct{ name, src, msg string }{
		{"EDN number", "{:type :invoke, :f :write, :value " + huge + ", :process 0}", "write value: want an integer or nil, not 7777"},
		{"EDN string", `{:type :invoke, :f :write, :value "` + word + `", :process 0}`, `write value: want an integer or nil, not "éé`},
		{"EDN key", `{:type :invoke, :f :read, :value nil, :process 0} {:type :ok, :f :read, :value [1 2], :process 0} {:type :invoke, :f :read, :value ["` + word + `" nil], :process 0} {:type :ok, :f :read, :value [1 2], :process 0}`, `the read completes on key 1, invoked on "éé`},
		{"JSON number", `{"process":0,"type":"invoke","f":"write","value":` + huge + `}`, "write value: want an integer or nil, not 7777"},
		{"JSON :f", `{"process":0,"type":"invoke","f":"` + word + `","value":1}`, "only 1 :éé"},
	}
	for _, tc := range tests {
		_, err := ReadBytes([]byte(tc.src), "h")
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), tc.msg) {
			s := fmt.Sprint(err)
			if len(s) > 300 {
				s = s[:300] + fmt.Sprintf("... (%d bytes)", len(s))
			}
			t.Errorf("%s: got %s, want %s", tc.name, s, tc.msg)
		}
	}
}
