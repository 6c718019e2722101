package jepsen_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/jepsen"
	"github.com/isocheck/isocheck/history"
	corpusdir "github.com/isocheck/isocheck/internal/testkit/corpus"
	"github.com/isocheck/isocheck/progress"
)

const ednRegister = `; a Jepsen rw-register history
[{:type :invoke, :f :txn, :value [[:w :x 1] [:r :y nil]], :process 0, :time 10, :index 0}
 {:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time 11, :index 1}
 {:type :info, :f :start-partition, :value nil, :process :nemesis, :time 12, :index 2}
 #jepsen.history.Op{:type :ok, :f :txn, :value [[:w :x 1] [:r :y nil]], :process 0, :time 13, :index 3}
 {:type :ok, :f :txn, :value [[:r :x 1]], :process 1, :time 14, :index 4}
 {:type :invoke, :f :txn, :value [[:w "k" :v] [:r 5 nil]], :process 0, :time 15, :index 5}
 {:type :fail, :f :txn, :value [[:w "k" :v] [:r 5 nil]], :process 0, :time 16, :index 6}
 {:type :invoke, :f :txn, :value [[:w :x 2] [:r :y nil]], :process 1, :time 17, :index 7}
 {:type :info, :f :txn, :value [[:w :x 2] [:r :y nil]], :process 1, :time 18, :index 8, :error :timeout}
 #_{:type :invoke, :process 7}
 {:type :invoke, :f :txn, :value [[:w :y 9223372036854775807]], :process 2, :time 19, :index 9}]
`

const ednRegisterDump = `init null
session 0: 0 2
session 1: 1 3
session 2: 4
0 "3" s0 committed [10,13] @h.edn:5: w(:x,1) r(:y,null)
1 "4" s1 committed [11,14] @h.edn:6: r(:x,1)
2 "6" s0 aborted [15,16] @h.edn:8: w(k,":v")
3 "8" s1 unknown [17,-] @h.edn:10: w(:x,2)
4 "9" s2 unknown [19,-] @h.edn:12: w(:y,"9223372036854775807")
`

// The same list-append history, one event a line, in EDN and elle-cli's
// JSON.
const (
	ednList = `{:type :invoke, :f :txn, :value [[:append 1 1] [:r 2 nil]], :process 0, :time 1, :index 0}
{:type :invoke, :f :txn, :value [[:r 1 nil] [:append 2 1]], :process 1, :time 2, :index 1}
{:type :ok, :f :txn, :value [[:append 1 1] [:r 2 []]], :process 0, :time 3, :index 2}
{:type :ok, :f :txn, :value [[:r 1 [1]] [:append 2 1]], :process 1, :time 4, :index 3}
{:type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil] [:r 2 nil]], :process 0, :time 5, :index 4}
{:type :ok, :f :txn, :value [[:append 1 2] [:r 1 [1 2]] [:r 2 nil]], :process 0, :time 6, :index 5}
{:type :invoke, :f :txn, :value [[:append 2 2]], :process 1, :time 7, :index 6}
{:type :fail, :f :txn, :value [[:append 2 2]], :process 1, :time 8, :index 7}
{:type :invoke, :f :txn, :value [[:append 2 3] [:r 2 nil]], :process 3, :time 9, :index 8}
`
	elleJSONList = `[{"type": "invoke", "f": "txn", "value": [["append", 1, 1], ["r", 2, null]], "process": 0, "time": 1, "index": 0},
 {"type": "invoke", "f": "txn", "value": [["r", 1, null], ["append", 2, 1]], "process": 1, "time": 2, "index": 1},
 {"type": "ok", "f": "txn", "value": [["append", 1, 1], ["r", 2, []]], "process": 0, "time": 3, "index": 2},
 {"type": "ok", "f": "txn", "value": [["r", 1, [1]], ["append", 2, 1]], "process": 1, "time": 4, "index": 3},
 {"type": "invoke", "f": "txn", "value": [["append", 1, 2], ["r", 1, null], ["r", 2, null]], "process": 0, "time": 5, "index": 4},
 {"type": "ok", "f": "txn", "value": [["append", 1, 2], ["r", 1, [1, 2]], ["r", 2, null]], "process": 0, "time": 6, "index": 5},
 {"type": "invoke", "f": "txn", "value": [["append", 2, 2]], "process": 1, "time": 7, "index": 6},
 {"type": "fail", "f": "txn", "value": [["append", 2, 2]], "process": 1, "time": 8, "index": 7},
 {"type": "invoke", "f": "txn", "value": [["append", 2, 3], ["r", 2, null]], "process": 3, "time": 9, "index": 8}]
`
	listDump = `init null
session 0: 0 2
session 1: 1 3
session 3: 4
0 "2" s0 committed [1,3]: w(1,1) r(2,null)[]
1 "3" s1 committed [2,4]: r(1,1)[1] w(2,1)
2 "5" s0 committed [5,6]: w(1,2) r(1,2)[1 2] r(2,null)[]
3 "7" s1 aborted [7,8]: w(2,2)
4 "8" s3 unknown [9,-]: w(2,3)
`
)

func TestReadEDN(t *testing.T) {
	h, info, err := format.ReadInfo(strings.NewReader(ednRegister), "h.edn", format.EDN)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	if got := formattest.Jdump(h, true); got != ednRegisterDump {
		t.Errorf("got\n%s\nwant\n%s", got, ednRegisterDump)
	}
	if info.Format != format.EDN || info.SkippedOps != 1 {
		t.Errorf("info %+v", info)
	}
	for name, src := range map[string]string{"edn": ednList, "json": elleJSONList} {
		f := format.EDN
		if name == "json" {
			f = format.ElleJSON
		}
		h, err := format.Read(strings.NewReader(src), "h", f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		formattest.CheckConsistent(t, h)
		if got := formattest.Jdump(h, false); got != listDump {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, listDump)
		}
		if !h.Lists {
			t.Errorf("%s: not a list history", name)
		}
		// Read alike a byte at a time.
		h1, err := format.Read(iotest.OneByteReader(strings.NewReader(src)), "h", f)
		if err != nil || formattest.Jdump(h1, true) != formattest.Jdump(h, true) {
			t.Errorf("%s read a byte at a time: %v\n%s", name, err, formattest.Jdump(h1, true))
		}
		// Detected alike.
		h2, info, err := format.ReadInfo(strings.NewReader(src), "h", format.Auto)
		if err != nil || info.Format != f || formattest.Jdump(h2, false) != listDump {
			t.Errorf("%s detected as %v: %v", name, info, err)
		}
	}
}

// Real time comes from :time, else from :index on every event, else there
// is none.
func TestReadEDNClock(t *testing.T) {
	const (
		i0 = "{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0"
		c0 = "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0"
	)
	tests := []struct {
		name, src, want string // want: [start,end] or an error
	}{
		{"time", i0 + ", :time 5, :index 1}\n" + c0 + ", :time 9, :index 2}", "[5,9]"},
		{"index", i0 + ", :index 1}\n" + c0 + ", :index 2}", "[1,2]"},
		{"index where time is missing", i0 + ", :time 5, :index 1}\n" + c0 + ", :index 2}", "[1,2]"},
		{"index where time runs backwards", i0 + ", :time 5, :index 1}\n" + c0 + ", :time 3, :index 2}", "[1,2]"},
		{"none", i0 + "}\n" + c0 + "}", ""},
		{"index only on completions", i0 + "}\n" + c0 + ", :index 2}", ""},
		{"time missing", i0 + ", :time 5}\n" + c0 + "}", "h:2: event without :time, though others have one (line 1)"},
		{"time backwards", i0 + ", :time 5}\n" + c0 + ", :time 3}", "h:2: the completion's :time 3 is before its invocation's :time 5 at line 1"},
		{"index backwards", i0 + ", :index 5}\n" + c0 + ", :index 3}", "h:2: the completion's :index 3 is before its invocation's :index 5 at line 1"},
	}
	for _, tc := range tests {
		h, err := format.Read(strings.NewReader(tc.src), "h", format.EDN)
		if strings.HasPrefix(tc.want, "h:") {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := ""
		if tx := h.Txns[0]; tx.Start != history.NoTime || tx.End != history.NoTime {
			got = fmt.Sprintf("[%s,%s]", formattest.TimeString(tx.Start), formattest.TimeString(tx.End))
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReadJepsenErrors(t *testing.T) {
	const inv = "{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0}\n"
	tests := []struct {
		f        format.Format
		src, msg string
	}{
		{format.EDN, "{:type :invoke, :f :read, :value nil, :process 0}", "h:1: no transactions (:f :txn) to check, only 1 :read; isocheck lwt checks registers"},
		{format.EDN, "\n{:type :invoke, :value [[:w 1 1]]}\n{:type :invoke, :value [[:w 1 2]]}", "h:3: two invocations without :process (lines 2 and 3) before a completion"},
		{format.EDN, inv + "{:type :ok, :f :read, :value [[:w 1 1]], :process 0}", "h:2: the completion's :f :read does not match the invocation's :f :txn at line 1"},
		{format.EDN, "{:type :ok, :f 3, :value [], :process 4}", "h:1: :f must be a keyword, not 3"},
		{format.EDN, "{:process 0, :value [[:w 1 1]]}", "h:1: event without :type"},
		{format.EDN, "{:type :done, :process 0}", "h:1: :type must be :invoke, :ok, :fail or :info, not :done"},
		{format.EDN, inv + inv, "h:2: process 0 invoked an operation before its invocation at line 1 completed"},
		{format.EDN, inv + "{:type :ok, :value 3, :process 0}", "h:2: :value must be a vector of micro-ops"},
		{format.EDN, inv + "{:type :ok, :process 0}", "h:2: :ok completion without :value"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1]], :process 0}", "h:2: micro-op 0: want [f key value]"},
		{format.EDN, inv + "{:type :ok, :value [[:cas 1 2]], :process 0}", `h:2: micro-op 0: unknown function "cas"`},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 nil]], :process 0}", "h:2: micro-op 0: writes nil"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1.5 2]], :process 0}", "h:2: micro-op 0: a key must be an integer, a keyword or a string, not 1.5"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 [2]]], :process 0}", "h:2: micro-op 0: a value must be an integer, a keyword or a string, not a list of 1"},
		{format.EDN, inv + "{:type :ok, :value [[:r 1 [2 [3]]]], :process 0}", "h:2: micro-op 0: element 1 of the list"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 1] [:append 2 1]], :process 0}", "h:2: the history mixes rw-register micro-ops and list-append ones: line 2 has rw-register"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 1]], :process 0}\n{:type :invoke, :value [[:r 1 nil]], :process 1}\n{:type :ok, :value [[:r 1 [1]]], :process 1}", "h:4: the history mixes"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 1]], :process 0, :index 3}\n{:type :invoke, :value [[:w 1 2]], :process 1}\n{:type :ok, :value [[:w 1 2]], :process 1, :index 3}", "h:4: duplicate transaction id: :index 3 is also the id of the transaction at line 2"},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 1]], :process 0, :time :t}", "h:2: :time must be an integer, not :t"},
		{format.EDN, "[" + inv + "] {}", "h:2: unexpected data after the history vector"},
		{format.EDN, "[" + inv, "h:2: unexpected end of input: missing ']'"},
		{format.EDN, "{:type :ok :value}", "h:1: a map needs an even number of forms"},
		{format.EDN, "\n\n[:a]", "h:3: an event must be a map"},
		{format.EDN, "\x1bc", `h:1: an event must be a map like {:type :invoke, :f :txn, :value [...], :process 0}, not \x1bc`},
		{format.EDN, "[:a\x00]", `h:1: an event must be a map like {:type :invoke, :f :txn, :value [...], :process 0}, not :a\x00`},
		{format.EDN, inv + "{:type :ok, :f :t\x07x, :value [], :process 0}", `h:2: the completion's :f :t\ax does not match the invocation's :f :txn at line 1`},
		{format.EDN, inv + "{:type :ok, :value [[:w 1 1]], :process 0, :time :t\x1b}", `h:2: :time must be an integer, not :t\x1b`},
		{format.ElleJSON, `{"type": "invoke", "f": "read", "process": 0}`, "h:1: no transactions (:f :txn) to check, only 1 :read"},
		{format.ElleJSON, `[{"type": "invoke", "value": [["w", 1, 1]], "process": 0},` + "\n" + ` 3]`, "h:2: an event must be a JSON object"},
		{format.ElleJSON, `[{"type": "invoke", "value": [["w", 1, 1]], "process": 0},` + "\n" + ` {"type": "ok", "value": [["w", 1, 1.5]], "process": 0}]`, "h:2: micro-op 0: a value must be an integer, a keyword or a string, not 1.5"},
		{format.ElleJSON, "{\"type\": \"invoke\",\n \"process\": 0, oops}", "h:2: bad JSON"},
		{format.ElleJSON, `[{"type": "invoke", "value": [], "process": 0}`, "h:1: bad JSON: unexpected end of input"},
		{format.ElleJSON, `[{"type": "invoke", "value": [], "process": 0}] 7`, "h:1: unexpected data after the history array"},
	}
	for _, tc := range tests {
		_, err := format.Read(strings.NewReader(tc.src), "h", tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %q: got %v, want %s", tc.f, tc.src, err, tc.msg)
			continue
		}
		formattest.CheckError(t, err)
	}
}

// jepsenRoundTrip writes h in f and reads it back.
func jepsenRoundTrip(t testing.TB, h *history.History, f format.Format) *history.History {
	t.Helper()
	var buf bytes.Buffer
	if err := format.Write(&buf, h, f); err != nil {
		t.Fatalf("write %s: %v", f, err)
	}
	h2, err := format.Read(bytes.NewReader(buf.Bytes()), "back", f)
	if err != nil {
		t.Fatalf("read back %s: %v\n%s", f, err, buf.Bytes())
	}
	return h2
}

func TestJepsenRoundTrip(t *testing.T) {
	srcs := map[string]struct {
		src string
		f   format.Format
	}{
		"register": {ednRegister, format.EDN},
		"list":     {ednList, format.EDN},
		"json":     {elleJSONList, format.ElleJSON},
		"names": {`{:type :invoke, :value [[:w "a b" "x\"y"] [:w :k/ns :kw] [:w -5 -4611686018427387904] [:w 12345678901234567890 -99999999999999999999]], :process -3}
{:type :ok, :value [[:w "a b" "x\"y"] [:w :k/ns :kw] [:w -5 -4611686018427387904] [:w 12345678901234567890 -99999999999999999999]], :process -3}
{:type :invoke, :value [[:r "a b" nil] [:r "" nil]], :process 7}
{:type :ok, :value [[:r "a b" "x\"y"] [:r "" nil]], :process 7}`, format.EDN},
	}
	for name, s := range srcs {
		h, err := format.Read(strings.NewReader(s.src), name, s.f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range []format.Format{format.EDN, format.ElleJSON} {
			h2 := jepsenRoundTrip(t, h, f)
			if !formattest.SameHistory(h, h2) || formattest.Jdump(h, false) != formattest.Jdump(h2, false) {
				t.Errorf("%s through %s:\n%s\nbecame\n%s", name, f, formattest.Jdump(h, false), formattest.Jdump(h2, false))
			}
		}
	}
	// Native histories: committed ones keep everything, times included
	// when every transaction has them.
	src := `{"session": "alice", "id": "t1", "ops": [["w", "x", 1], ["r", "y", null]], "start": 1, "end": 4}
{"session": 2, "id": "t2", "ops": [["r", "x", 1], ["w", 7, "s"]], "start": 2, "end": 5}
{"session": "alice", "status": "unknown", "ops": [["w", "y", 3]], "start": 6}
`
	h, err := format.Read(strings.NewReader(src), "n.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []format.Format{format.EDN, format.ElleJSON} {
		h2 := jepsenRoundTrip(t, h, f)
		want := `init null
session 0: 0 2
session 2: 1
0 "0" s0 committed [1,4]: w(x,1) r(y,null)
1 "1" s2 committed [2,5]: r(x,1) w(7,"s")
2 "2" s0 unknown [6,-]: w(y,3)
`
		if got := formattest.Jdump(h2, false); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", f, got, want)
		}
	}
	// A transaction without a start is written as its completion alone,
	// which reads back without one; the others keep their times.
	h.Txns[2].Start = history.NoTime
	for _, f := range []format.Format{format.EDN, format.ElleJSON} {
		h2 := jepsenRoundTrip(t, h, f)
		for i, tx := range h2.Txns {
			if tx.Start != h.Txns[i].Start || tx.Status != history.Unknown && tx.End != h.Txns[i].End {
				t.Errorf("%s: transaction %d at [%d,%d], want [%d,%d]", f, i, tx.Start, tx.End, h.Txns[i].Start, h.Txns[i].End)
			}
		}
	}
	// Without an end on a committed transaction, no time is written.
	h.Txns[1].End = history.NoTime
	for _, f := range []format.Format{format.EDN, format.ElleJSON} {
		for _, tx := range jepsenRoundTrip(t, h, f).Txns {
			if tx.Start != history.NoTime || tx.End != history.NoTime {
				t.Errorf("%s: time [%d,%d]", f, tx.Start, tx.End)
			}
		}
	}
}

// elleCorpusCounts reads the committed transactions of each history from
// the corpus README.
func elleCorpusCounts(t *testing.T, dir string) map[string]int {
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\| (\S+\.edn) \|[^|]*\|[^|]*\|[^|]*\| (\d+) \|`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// Every Elle history of the corpus parses, with the transactions its
// README lists, and round-trips.
func TestElleCorpus(t *testing.T) {
	dir := filepath.Join(corpusdir.Dir(t), "elle-list-append")
	counts := elleCorpusCounts(t, dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.edn"))
	if len(files) == 0 || len(counts) == 0 {
		t.Fatalf("no histories in %s", dir)
	}
	for _, path := range files {
		h, info, err := format.ReadFileInfo(path, format.Auto)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		formattest.CheckConsistent(t, h)
		want, ok := counts[filepath.Base(path)]
		if !ok {
			t.Errorf("%s: not in the README", path)
		}
		if info.Format != format.EDN || len(h.Txns) != want || !h.Lists {
			t.Errorf("%s: %s, %d transactions, lists %v; want edn, %d", path, info.Format, len(h.Txns), h.Lists, want)
		}
		for _, tx := range h.Txns {
			if tx.Status != history.Committed || !tx.HasTime() {
				t.Fatalf("%s: %+v", path, tx)
			}
		}
		if testing.Short() {
			continue
		}
		h2 := jepsenRoundTrip(t, h, format.EDN)
		if !formattest.SameHistory(h, h2) || formattest.Jdump(h, false) != formattest.Jdump(h2, false) {
			t.Errorf("%s: the round trip changed the history", path)
		}
	}
}

// writeListAppend writes a generated list-append history of txns
// transactions in EDN, one event a line, as Elle's generator makes them:
// 20 processes, 2 to 4 micro-ops a transaction, lists that grow to about
// 100 elements before their key retires.
func writeListAppend(path string, txns int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	seed := uint64(1)
	rnd := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	lists := map[int][]int{}
	active := []int{}
	nextKey := 0
	type mop struct {
		app  bool
		k, v int
	}
	const procs = 20
	pending := make([][]mop, procs)
	inv := make([]int64, procs)
	index := 0
	var line []byte
	for done := 0; done < txns; {
		p := rnd(procs)
		if pending[p] == nil {
			for len(active) < 8 {
				active = append(active, nextKey)
				nextKey++
			}
			n := 2 + rnd(3)
			ms := make([]mop, n)
			for i := range ms {
				j := rnd(len(active))
				ms[i] = mop{app: rnd(2) == 0, k: active[j]}
				if ms[i].app {
					ms[i].v = len(lists[ms[i].k]) + 1
					lists[ms[i].k] = append(lists[ms[i].k], ms[i].v)
					if len(lists[ms[i].k]) >= 100 {
						active = append(active[:j], active[j+1:]...)
					}
				}
			}
			pending[p] = ms
			line = fmt.Appendf(line[:0], "{:type :invoke, :f :txn, :value [")
			for i, m := range ms {
				if i > 0 {
					line = append(line, ' ')
				}
				if m.app {
					line = fmt.Appendf(line, "[:append %d %d]", m.k, m.v)
				} else {
					line = fmt.Appendf(line, "[:r %d nil]", m.k)
				}
			}
			inv[p] = int64(index)
			line = fmt.Appendf(line, "], :time %d, :process %d, :index %d}\n", index*1000, p, index)
		} else {
			ms := pending[p]
			pending[p] = nil
			line = fmt.Appendf(line[:0], "{:type :ok, :f :txn, :value [")
			for i, m := range ms {
				if i > 0 {
					line = append(line, ' ')
				}
				if m.app {
					line = fmt.Appendf(line, "[:append %d %d]", m.k, m.v)
					continue
				}
				// What the key held when the transaction was invoked:
				// a prefix of its list.
				l := lists[m.k]
				line = fmt.Appendf(line, "[:r %d [", m.k)
				for j, v := range l[:len(l)*3/4] {
					if j > 0 {
						line = append(line, ' ')
					}
					line = strconv.AppendInt(line, int64(v), 10)
				}
				line = append(line, "]]"...)
			}
			line = fmt.Appendf(line, "], :time %d, :process %d, :index %d}\n", index*1000, p, index)
			done++
		}
		index++
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

func TestGeneratedListAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.edn")
	if err := writeListAppend(path, 2000); err != nil {
		t.Fatal(err)
	}
	h, err := format.ReadFile(path, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	formattest.CheckConsistent(t, h)
	if len(h.Txns) < 2000 || !h.Lists || len(h.ListReads) == 0 {
		t.Errorf("%d transactions, %d list reads", len(h.Txns), len(h.ListReads))
	}
	for _, f := range []format.Format{format.EDN, format.ElleJSON} {
		h2 := jepsenRoundTrip(t, h, f)
		if !formattest.SameHistory(h, h2) || formattest.Jdump(h, false) != formattest.Jdump(h2, false) {
			t.Errorf("%s: the round trip changed the history", f)
		}
	}
}

// A read stops when its context ends, with an error that says so.
func TestReadJepsenStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range []format.Format{format.EDN, format.ElleJSON} {
		src := strings.Repeat(ednList, 1000)
		if f == format.ElleJSON {
			src = elleJSONList
		}
		_, _, err := format.ReadContext(ctx, strings.NewReader(src), "h", f)
		if !progress.Stopped(err) {
			t.Errorf("%s: got %v, want a stop", f, err)
		}
	}
}

// An integer of JSON beyond int64 keeps its text without math/big, whose
// parsing takes time quadratic in the length (a history of one 8 MiB
// number took minutes).
func TestElleJSONHugeInteger(t *testing.T) {
	tests := []struct {
		in   string
		n    int64
		big  string
		isOK bool
	}{
		{"12", 12, "", true},
		{"-9223372036854775808", math.MinInt64, "", true},
		{"9223372036854775808", 0, "9223372036854775808", true},
		{"-123456789012345678901234567890", 0, "-123456789012345678901234567890", true},
		{"1.5", 0, "", false},
		{"1e30", 0, "", false},
		{"-", 0, "", false},
	}
	for _, tc := range tests {
		n, big, ok := jepsen.JSONInt(json.Number(tc.in))
		if n != tc.n || big != tc.big || ok != tc.isOK {
			t.Errorf("jsonInt(%s) = %d, %q, %v; want %d, %q, %v", tc.in, n, big, ok, tc.n, tc.big, tc.isOK)
		}
	}
	huge := strings.Repeat("7", 8<<20)
	start := time.Now()
	h, err := format.Read(strings.NewReader(`{"type": "invoke", "f": "txn", "value": [["w", 1, `+huge+`]], "process": 0}`), "h", format.ElleJSON)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	if got := h.FormatValue(h.Ops[0].Value); len(got) != len(huge)+2 {
		t.Errorf("value of %d bytes, want %d", len(got), len(huge)+2)
	}
}

// TestReadEDNFaults: the nemesis's events are kept as the history's
// faults, an invocation and its completion as one, with their :time
// when the transactions have theirs, and a long value cut short.
func TestReadEDNFaults(t *testing.T) {
	const txns = `{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 10, :index 0}
{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 20, :index 1}
`
	nemesis := `{:type :info, :f :start-partition, :value nil, :process :nemesis, :time 25, :index 2}
{:type :info, :f :start-partition, :value [:isolated {"n1" #{"n2" "n3"}}], :process :nemesis, :time 30, :index 3}
{:type :info, :f :kill, :value :all, :process :nemesis, :time 40, :index 4}
{:type :info, :f :stop-partition, :value nil, :process :nemesis, :time 60, :index 5}
{:type :info, :f :stop-partition, :value [` + strings.Repeat(":n1 ", 100) + `], :process :nemesis, :time 70, :index 6}
`
	h, err := format.Read(strings.NewReader(txns+nemesis), "n.edn", format.EDN)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range h.Faults {
		got = append(got, fmt.Sprintf("%d %s", f.Time, f.What))
	}
	want := []string{
		`25 start-partition [:isolated {"n1" #{"n2" "n3"}}]`,
		`40 kill :all`,
		`60 stop-partition [` + strings.TrimSpace(strings.Repeat(":n1 ", 100))[:200-1] + `…`,
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || len(h.Faults[2].What) > len("stop-partition ")+200+len("…") || !strings.HasPrefix(got[2], "60 stop-partition [:n1 :n1") {
		t.Errorf("faults:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without :time on the transactions the faults have none either.
	noTime := regexp.MustCompile(`, :time \d+`)
	h, err = format.Read(strings.NewReader(noTime.ReplaceAllString(txns, "")+nemesis), "n.edn", format.EDN)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Faults) != 3 || h.Faults[0].Time != history.NoTime {
		t.Errorf("faults %+v, want 3 without times", h.Faults)
	}
}
