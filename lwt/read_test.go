package lwt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/internal/progress"
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
	{Process: 0, Kind: Write, Value: 1, Call: 0, Return: 5},
	{Process: 2, Kind: CAS, Old: 1, New: 2, Call: 9, Return: 13},
	{Process: 1, Kind: Read, Value: 1, Call: 10, Return: 12},
	{Process: 1, Kind: CAS, Old: 1, New: 3, Call: 14, Return: 15, Outcome: Fail},
	{Process: 0, Kind: Write, Value: 4, Call: 16, Return: Never, Outcome: Info},
	{Process: 3, Kind: Read, Call: 18, Return: Never, Outcome: Info},
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

func TestReadSamples(t *testing.T) {
	for name, src := range map[string]string{"edn": ednSample, "jsonl": jsonlSample} {
		t.Run(name, func(t *testing.T) {
			ops, err := ReadBytes([]byte(src), name)
			if err != nil {
				t.Fatal(err)
			}
			sameOps(t, ops, sampleOps)
			if res := Check(ops); !res.OK() {
				t.Errorf("sample: %v", res)
			}
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
	ops, err := ReadEDN([]byte(src), "ind.edn")
	if err != nil {
		t.Fatal(err)
	}
	// No :time: real time is the position of the event.
	sameOps(t, ops, []Op{
		{Process: 0, Kind: CAS, Key: "x", Old: Nil, New: 1, Call: 0, Return: 2},
		{Process: 1, Kind: Read, Key: "7", Value: Nil, Call: 1, Return: 3},
		{Process: 0, Kind: Write, Key: "y", Value: 5, Call: 4, Return: 5},
		{Process: 1, Kind: Read, Key: "x", Value: 1, Call: 6, Return: 7},
	})
	if res := Check(ops); !res.OK() || res.Keys != 3 {
		t.Errorf("got %v with %d keys", res, res.Keys)
	}
	j := `{"process":0,"type":"invoke","f":"cas","key":"x","value":[null,1]}
{"process":0,"type":"ok","f":"cas","key":"x","value":[null,1]}
{"process":1,"type":"invoke","f":"read","value":["x",null]}
{"process":1,"type":"ok","f":"read","value":["x",1]}
`
	ops, err = ReadJSONL([]byte(j), "ind.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sameOps(t, ops, []Op{
		{Process: 0, Kind: CAS, Key: "x", Old: Nil, New: 1, Call: 0, Return: 1},
		{Process: 1, Kind: Read, Key: "x", Value: 1, Call: 2, Return: 3},
	})
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ src, line, msg string }{
		{"{:type :invoke, :f :read, :process 0}\n{:type :ok :f :read :process 0 :value \"a\"}", ":2:", "want an integer or nil"},
		{"{:type :invoke, :f :read, :process 0}\n\n{:type :invoke, :f :read, :process 0}", ":3:", "invoked again before its invocation at line 1"},
		{"{:type :ok, :f :read, :process 0}", ":1:", "did not invoke"},
		{"{:type :invoke, :f :add, :process 0}", ":1:", "unsupported :f"},
		{"{:type :invoke, :f :cas, :value 3, :process 0}", ":1:", "[old new]"},
		{"\n\n{:type :invoke, :f :cas, :value [1 2] :process 0", ":3:", "missing"},
		{"{:type :invoke :f}", ":1:", "even number"},
		{"{:f :read, :process 0}", ":1:", "without :type"},
		{"{:type :invoke, :f :read}", ":1:", "without :process"},
		{"{:type :invoke, :f :write, :value 99999999999999999999, :process 0}", ":1:", "want an integer or nil, not 99999999999999999999"},
		{"{:type :invoke, :f :write, :value 1x, :process 0}", ":1:", "bad number"},
		{"[{:type :invoke, :f :read, :process 0}] {}", ":1:", "unexpected data after the history vector"},
		{`{"process":0,"type":"invoke","f":"write","value":1}` + "\n" + `{"process":0,"type":"ok","f":"read"}`, ":2:", "does not match"},
		{`{"process":0,"type":"invoke","f":"write","value":1}` + "\n" + `{"process":0, oops}`, ":2:", "bad JSON"},
		{strings.Repeat("[", 100), ":1:", "nested deeper"},
	}
	for _, tc := range tests {
		_, err := ReadBytes([]byte(tc.src), "h")
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "h"+tc.line) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want %s ... %s", tc.src, err, tc.line, tc.msg)
		}
	}
}

// Writing and reading back gives the same operations and verdict.
func TestRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		inj := Injection(seed % 4)
		ops, _ := Generate(GenConfig{Processes: 5, Ops: 300, Keys: 1 + int(seed%3), Seed: seed, ReadFrac: 0.3, WriteFrac: 0.1, CASHit: 0.5, InfoFrac: 0.05, Inject: inj})
		want := Check(ops)
		for name, write := range map[string]func(*bytes.Buffer, []Op) error{
			"edn":   func(b *bytes.Buffer, o []Op) error { return WriteEDN(b, o) },
			"jsonl": func(b *bytes.Buffer, o []Op) error { return WriteJSONL(b, o) },
		} {
			var buf bytes.Buffer
			if err := write(&buf, ops); err != nil {
				t.Fatal(err)
			}
			back, err := ReadBytes(buf.Bytes(), name)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			if got := Check(back); got.OK() != want.OK() {
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
	f.Add([]byte(`#{1 2} #_ 3 \a "s\n" 1.5 -3N (1 2)`))
}

// fuzzCheck checks what was read when it is small (the exact search is
// exponential in the worst case).
func fuzzCheck(t *testing.T, ops []Op, err error) {
	if err != nil {
		var le *LineError
		if !errors.As(err, &le) || le.Line < 1 {
			t.Fatalf("error without a line: %v", err)
		}
		return
	}
	if len(ops) <= 12 {
		res := Check(ops)
		_ = res.String()
	}
}

func FuzzReadEDN(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := ReadEDN(data, "fuzz")
		fuzzCheck(t, ops, err)
	})
}

func FuzzReadJSONL(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := ReadJSONL(data, "fuzz")
		fuzzCheck(t, ops, err)
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
			{Process: 1, Kind: Read, Value: 1, Call: 20, Return: 21},
			{Process: 0, Kind: Write, Value: 1, Call: 0, Return: 5},
		})
		if res := Check(ops); !res.OK() {
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
			"h:1: event without :time, though others have one (line 2)", nil},
		{"index alone runs backwards",
			w0 + " :index 4}\n" + w1 + " :index 1}\n",
			"h:2: the completion's :index 1 is before its invocation's :index 4 at line 1", nil},
		{"no clock: file positions",
			w0 + "}\n" + r0 + "}\n" + w1 + "}\n" + r1 + "}\n",
			"", [][2]int64{{0, 2}, {1, 3}}},
	}
	for _, tc := range tests {
		ops, err := ReadEDN([]byte(tc.src), "h")
		if tc.err != "" {
			var le *LineError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.err) {
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

// zeros reads as an endless run of zero bytes, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// Reading an endless input stops at the first form or line longer than
// MaxForm (issue 8: isocheck lwt /dev/zero ran out of memory).
func TestReadEndless(t *testing.T) {
	z := &zeros{}
	_, err := ReadHistory(z, "zero")
	var le *LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "zero:1: an EDN form longer than 67108864 bytes, from byte 0 on") {
		t.Errorf("got %v", err)
	}
	if z.n > 2*MaxForm {
		t.Errorf("read %d bytes", z.n)
	}
	if testing.Short() {
		return
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "longer than") {
			t.Errorf("/dev/zero: got %v", err)
		}
	}
}

// Forms and lines longer than the limit are errors with their line and
// byte offset; forms and lines before them are read one at a time.
func TestReadLimit(t *testing.T) {
	ev := "{:type :invoke, :f :read, :process 0}\n"
	src := "[" + strings.Repeat(ev, 100) + "\n{:type :invoke, :f :write, :value " + strings.Repeat("1", 200) + "}]"
	d := edn.NewDecoder(iotest.HalfReader(strings.NewReader(src)))
	d.SetLimits(100, 0)
	_, err := readEDN(d, "h")
	want := fmt.Sprintf("h:102: an EDN form longer than 100 bytes, from byte %d on", 1+100*len(ev)+1)
	if err == nil || err.Error() != want {
		t.Errorf("EDN: got %v, want %s", err, want)
	}
	jev := `{"process":0,"type":"invoke","f":"read"}` + "\n"
	jsrc := strings.Repeat(jev, 3) + "\n" + `{"process":0,"type":"ok","f":"read","value":` + strings.Repeat("1", 200) + "}\n"
	lr := &lineReader{br: bufio.NewReaderSize(strings.NewReader(jsrc), 16), name: "j", max: 100}
	_, err = lr.readJSONL()
	want = fmt.Sprintf("j:5: a line longer than 100 bytes, from byte %d on", 3*len(jev)+1)
	if err == nil || err.Error() != want {
		t.Errorf("JSONL: got %v, want %s", err, want)
	}
}

// A reader stops once its context ends, with an error that says so.
func TestReadContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadHistoryContext(ctx, &zeros{}, "z")
	if !progress.Stopped(err) {
		t.Errorf("got %v, want a stop", err)
	}
	path := filepath.Join(t.TempDir(), "h.edn")
	if err := os.WriteFile(path, []byte(ednSample), 0o666); err != nil {
		t.Fatal(err)
	}
	tr := progress.NewTracker()
	ops, err := ReadFileContext(progress.WithTracker(context.Background(), tr), path)
	if err != nil {
		t.Fatal(err)
	}
	sameOps(t, ops, sampleOps)
	if s := tr.Snapshot(); s.Stage != "reading" || s.Done != int64(len(ednSample)) || s.Total != s.Done {
		t.Errorf("progress %+v", s)
	}
	if _, err := ReadFileContext(ctx, path); !progress.Stopped(err) {
		t.Errorf("got %v, want a stop", err)
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

// Error messages cut huge tokens short (issue 8: a 50 MB number made a
// 52 MB message).
func TestReadHugeToken(t *testing.T) {
	huge := strings.Repeat("7", 8<<20)
	word := strings.Repeat("é", 4<<20)
	tests := []struct{ name, src, msg string }{
		{"EDN number", "{:type :invoke, :f :write, :value " + huge + ", :process 0}", `write value: want an integer or nil, not 777777777777777777777777777777777777… (8388608 bytes)`},
		{"EDN bad number", "{:type :invoke, :f :write, :value " + huge + "x, :process 0}", `bad number "777777777777777777777777777777777777"… (8388609 bytes)`},
		{"EDN float", "{:type :invoke, :f :write, :value 0." + huge + ", :process 0}", "write value: want an integer or nil, not 0.7777777777777778"},
		{"EDN keyword", "{:type :" + word + ", :f :write, :value 1, :process 0}", `unknown :type "éééééééééééééééééé"… (8388608 bytes)`},
		{"EDN symbol", word, "an event must be a map, not éééééééééééééééééé… (8388608 bytes)"},
		{"EDN string", `{:type :invoke, :f :write, :value "` + word + `", :process 0}`, `write value: want an integer or nil, not "éééééééééééééééééé"… (8388608 bytes)`},
		{"EDN key", `{:type :invoke, :f :read, :value nil, :process 0} {:type :ok, :f :read, :value [1 2], :process 0} {:type :invoke, :f :read, :value ["` + word + `" nil], :process 0} {:type :ok, :f :read, :value [1 2], :process 0}`, `the read completes on key 1, invoked on "éééééééééééééééééé"… (8388608 bytes)`},
		{"JSON number", `{"process":0,"type":"invoke","f":"write","value":` + huge + `}`, "write value: want an integer or nil, not 777777777777777777777777777777777777… (8388608 bytes)"},
		{"JSON string", `{"process":0,"type":"invoke","f":"` + word + `","value":1}`, `unsupported :f "éééééééééééééééééé"… (8388608 bytes)`},
	}
	for _, tc := range tests {
		_, err := ReadBytes([]byte(tc.src), "h")
		if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), tc.msg) {
			s := fmt.Sprint(err)
			if len(s) > 200 {
				s = s[:200] + fmt.Sprintf("... (%d bytes)", len(s))
			}
			t.Errorf("%s: got %s, want %s", tc.name, s, tc.msg)
		}
	}
}
