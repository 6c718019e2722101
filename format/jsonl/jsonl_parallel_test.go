package jsonl_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
	"github.com/isocheck/isocheck/format/jsonl"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// readJSONLBoth reads data line by line and in parallel in chunks of
// chunk bytes by workers workers.
func readJSONLBoth(data []byte, chunk, workers int) (seq, par *history.History, seqErr, parErr error) {
	seq, seqErr = readJSONLConfig(bytes.NewReader(data), int64(len(data)), lineByLine)
	par, parErr = readJSONLConfig(bytes.NewReader(data), int64(len(data)), jsonl.ParallelConfig{Chunk: chunk, Workers: workers})
	return
}

// lineByLine is the configuration that never reads in parallel.
var lineByLine = jsonl.ParallelConfig{MinSize: 1 << 62}

// readJSONLConfig reads r, of size bytes, as JSONL with cfg.
func readJSONLConfig(r io.Reader, size int64, cfg jsonl.ParallelConfig) (*history.History, error) {
	return readJSONLConfigAt(r, size, cfg, 0, 0)
}

// readJSONLConfigAt reads r, of size bytes, as JSONL with cfg: a part of
// an input from line line (counted from 0) on, at byte offset offset.
func readJSONLConfigAt(r io.Reader, size int64, cfg jsonl.ParallelConfig, line int, offset int64) (*history.History, error) {
	m := progress.Start(context.Background(), "parse", size, "bytes")
	return jsonl.ReadJSONLWith(m, scan.NewLineReaderAt(bufio.NewReader(r), "p.jsonl", line, offset), size, cfg)
}

// TestParallelPartSameAsLineByLine: a part of an input read in parallel
// (as package online reads the pieces between fences) names the same
// lines and offsets, in its transactions and its errors, as when read
// line by line.
func TestParallelPartSameAsLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		data := randomJSONL(rng, 1+rng.IntN(80))
		line, offset := rng.IntN(1000), rng.Int64N(1<<20)
		seq, seqErr := readJSONLConfigAt(bytes.NewReader(data), int64(len(data)), lineByLine, line, offset)
		par, parErr := readJSONLConfigAt(bytes.NewReader(data), int64(len(data)), jsonl.ParallelConfig{Chunk: 64 + rng.IntN(512), Workers: 1 + rng.IntN(3)}, line, offset)
		if fmt.Sprint(seqErr) != fmt.Sprint(parErr) {
			t.Fatalf("from line %d: line by line: %v\nin parallel: %v\ninput:\n%s", line, seqErr, parErr, data)
		}
		if seqErr == nil && !reflect.DeepEqual(seq, par) {
			t.Fatalf("from line %d: the histories differ:\n%s\nin parallel:\n%s", line, formattest.Dump(seq, true), formattest.Dump(par, true))
		}
	}
}

// checkParallelSame checks that reading data in parallel gives exactly
// the history, or the error, of reading it line by line.
func checkParallelSame(t testing.TB, data []byte, chunk, workers int) {
	t.Helper()
	seq, par, seqErr, parErr := readJSONLBoth(data, chunk, workers)
	if fmt.Sprint(seqErr) != fmt.Sprint(parErr) {
		t.Fatalf("chunk %d, %d workers: read line by line: %v\nin parallel: %v\ninput:\n%s", chunk, workers, seqErr, parErr, data)
	}
	if seqErr != nil {
		return
	}
	if !reflect.DeepEqual(seq, par) {
		t.Fatalf("chunk %d, %d workers: the histories differ:\n%s\nin parallel:\n%s\ninput:\n%s", chunk, workers, formattest.Dump(seq, true), formattest.Dump(par, true), data)
	}
}

// randomJSONL returns a random JSONL input: transactions of the common
// shape, with now and then a line of another (lists, orders, escapes,
// blank lines, errors).
func randomJSONL(rng *rand.Rand, lines int) []byte {
	var b strings.Builder
	if rng.IntN(10) == 0 {
		b.WriteString("\xEF\xBB\xBF")
	}
	lists := rng.IntN(4) == 0
	for i := 0; i < lines; i++ {
		switch rng.IntN(40) {
		case 0:
			b.WriteString("\n")
			continue
		case 1:
			b.WriteString("  \r\n")
			continue
		case 2:
			fmt.Fprintf(&b, `{"key":%d,"order":[%d]}`+"\n", rng.IntN(5), rng.IntN(5)+1)
			continue
		case 7:
			fmt.Fprintf(&b, `{"nemesis":"partition %d-%d","time":%d}`+"\n", rng.IntN(3), rng.IntN(3), rng.IntN(100))
			continue
		case 3:
			fmt.Fprintf(&b, `{"session":"s\"%d","id":"i\u00e9%d","ops":[["w","k\n",%d]]}`+"\n", rng.IntN(3), rng.IntN(50), rng.IntN(9))
			continue
		case 4:
			// a line with an error somewhere
			line := fmt.Sprintf(`{"session":%d,"ops":[["r",%d,%d],["w",%d,%d]],"start":%d,"end":%d}`, rng.IntN(3), rng.IntN(9), rng.IntN(9), rng.IntN(9), rng.IntN(9), rng.IntN(9), rng.IntN(9))
			j := rng.IntN(len(line))
			b.WriteString(line[:j] + string("x]},\"1-"[rng.IntN(7)]) + line[j+1:] + "\n")
			continue
		case 5:
			fmt.Fprintf(&b, `{"session":0,"ops":[["append",%d,%d],["r",%d,[1,2]]]}`+"\n", rng.IntN(5), rng.IntN(9), rng.IntN(5))
			continue
		case 6:
			b.WriteString(`{"session":0,"ops":[` + strings.Repeat(`["r",1,null],`, rng.IntN(60)) + `["r",2,null]]}` + "\n")
			continue
		}
		b.WriteString(`{`)
		var fields []string
		switch rng.IntN(4) {
		case 0:
			fields = append(fields, fmt.Sprintf(`"session":"s%d"`, rng.IntN(4)))
		default:
			fields = append(fields, fmt.Sprintf(`"session":%d`, rng.IntN(4)-1))
		}
		switch rng.IntN(5) {
		case 0:
			fields = append(fields, fmt.Sprintf(`"id":"t%d"`, rng.IntN(lines)))
		case 1:
			fields = append(fields, fmt.Sprintf(`"id":%d`, rng.IntN(2*lines)))
		case 2:
			fields = append(fields, `"id":""`, `"id":null`)[:len(fields)+1]
		}
		if rng.IntN(3) == 0 {
			fields = append(fields, fmt.Sprintf(`"status":"%s"`, []string{"committed", "aborted", "unknown", "bad"}[rng.IntN(4)]))
		}
		var ops []string
		for range rng.IntN(6) {
			key := fmt.Sprint(rng.IntN(20))
			switch rng.IntN(5) {
			case 0:
				key = `"` + key + `"`
			case 1:
				key = fmt.Sprint(rng.Int64())
			case 2:
				key = "18446744073709551615"
			}
			val := fmt.Sprint(rng.IntN(9))
			switch rng.IntN(6) {
			case 0:
				val = `"v` + val + `"`
			case 1:
				val = "-4611686018427387904"
			case 2:
				val = "null"
			}
			kind := "r"
			if rng.IntN(2) == 0 && val != "null" {
				kind = "w"
			}
			if lists && kind == "w" {
				kind = "append"
			}
			if lists && kind == "r" && val != "null" && rng.IntN(2) == 0 {
				val = "[" + val + "]"
			}
			ops = append(ops, fmt.Sprintf(`[ "%s", %s ,%s]`, kind, key, val))
		}
		fields = append(fields, `"ops":[`+strings.Join(ops, ",")+`]`)
		if rng.IntN(2) == 0 {
			s := rng.IntN(100)
			fields = append(fields, fmt.Sprintf(`"start":%d`, s), fmt.Sprintf(`"end":%d`, s+rng.IntN(10)-1))
		}
		rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		b.WriteString(strings.Join(fields, ","))
		b.WriteString("}")
		if i < lines-1 || rng.IntN(2) == 0 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

func TestJSONLParallelSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 3000; i++ {
		data := randomJSONL(rng, 1+rng.IntN(40))
		checkParallelSame(t, data, []int{64, 100, 200, 1000, 1 << 20}[rng.IntN(5)], 1+rng.IntN(3))
	}
	// Larger histories, without errors.
	for _, n := range []int{1000, 20_000} {
		var buf bytes.Buffer
		if err := format.Write(&buf, formattest.BenchHistory(n, 8), format.JSONL); err != nil {
			t.Fatal(err)
		}
		checkParallelSame(t, buf.Bytes(), 4096, 2)
		checkParallelSame(t, buf.Bytes(), 1<<20, 3)
	}
	// A line longer than a chunk, and a read error.
	long := []byte(`{"session":0,"ops":[` + strings.Repeat(`["r",1,null],`, 100) + `["r",2,null]]}` + "\n")
	data := append(randomJSONL(rng, 10), long...)
	data = append(data, randomJSONL(rng, 10)...)
	checkParallelSame(t, data, 200, 2)
}

// TestJSONLParallelFiles reads the JSONL inputs of the tests both ways.
func TestJSONLParallelFiles(t *testing.T) {
	for _, tt := range jsonlErrorInputs() {
		for _, chunk := range []int{64, 1 << 20} {
			checkParallelSame(t, []byte(tt), chunk, 2)
		}
	}
}

// FuzzJSONLParallel checks that reading in parallel gives what reading line
// by line does.
func FuzzJSONLParallel(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		f.Add(randomJSONL(rng, 10), uint16(100))
	}
	for _, s := range jsonlErrorInputs() {
		f.Add([]byte(s), uint16(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		checkParallelSame(t, data, int(chunk%2000)+64, 2)
	})
}

// jsonlErrorInputs are inputs of the other tests: errors at every stage of
// a line, lists, orders and escapes.
func jsonlErrorInputs() []string {
	const ok = `{"session":0,"ops":[]}` + "\n"
	return []string{
		`{"session":0,"ops":[["r","x",null]]} extra`,
		`{"session":0,"opz":[]}`,
		`{"ops":[]}`,
		`{"session":0}`,
		`{}`,
		ok + `{"session":0,"ops":[],"status":"comitted"}`,
		`{"session":0,"ops":[["r","x"]]}`,
		`{"session":0,"ops":[["w","x",null]]}`,
		`{"session":0,"ops":[["w","x",18446744073709551616]]}`,
		`{"session":0,"ops":[],"start":9223372036854775808}`,
		`{"session":0,"ops":[],"end":-9223372036854775808}`,
		`{"session":0,"ops":[],"start":10,"end":5}`,
		`{"session":0,"ops":[],"session":1}`,
		`{"session":0,"ops":[["w","x\u12","a"]]}`,
		`{"session":0,"ops":[["w","` + "\xff" + `",1]]}`,
		ok + "\n" + `{"session":0,"ops":[["w","x",1]]`,
		ok + `{"session":0,"id":"1","ops":[]}`,
		`{"session":0,"id":"3","ops":[]}` + "\n\n" + ok,
		`{"session":0,"id":"t","ops":[]}` + "\n" + `{"session":0,"id":"t","ops":[]}`,
		`{"session":0,"ops":[["append","x",1]]}` + "\n" + `{"session":0,"ops":[["w","x",2]]}`,
		`{"session":0,"ops":[["w","x",2]]}` + "\n" + `{"session":0,"ops":[["append","x",1]]}`,
		`{"session":0,"ops":[["append","x",1]]}` + "\n" + `{"session":0,"ops":[["r","x",null],["r","y",2]]}`,
		`{"session":0,"ops":[["append","x",1]]}` + "\n" + `{"session":0,"ops":[["r","x",null]]}`,
		`{"session":0,"ops":[["r","x",null]]}` + "\n" + `{"session":0,"ops":[["append","x",1]]}`,
		`{"session":0,"ops":[["w","x",1],["w","x",2],["r","y",null]]}` + "\n" + `{ "key" : "x" , "order" : [ 2 , 1 ] }` + "\n" + `{"key":"x","order":[1]}`,
		`{"session":0,"ops":[["w","x",4611686018427387904],["r","x","4611686018427387904"],["w",18446744073709551615,-9223372036854775808]]}`,
		"\xEF\xBB\xBF { \"ops\" : [ [ \"w\" , 1 , 2 ] ] , \"session\" : -1 , \"end\" : 1e3 }\r\n",
		"\xEF\xBB\xBF { \"ops\" : [ [ \"w\" , 1 , 2 ] ] , \"session\" : -1 , \"end\" : 1 }\r\n",
		`{"session":"a\"b\\","id":"\t","ops":[["w","k\u00e9\n","\ud83d\ude00/\/"],["r","\ud83d","x\u0000y"]]}`,
		`{"session":1,"status":"unknown","ops":[["r","y","h\u00e9\"llo\ud83d\ude00"]],"start":5}`,
		`{"session":"é","id":"ü","status":"aborted","ops":[["w","ключ","значение"],["r",-5,"5"]]}`,
	}
}

// failingReader is an input of known size whose reading fails after its
// data.
type failingReader struct {
	r    *bytes.Reader
	size int
}

func (f *failingReader) Len() int { return f.size }

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n == 0 && err != nil {
		return 0, fmt.Errorf("disk on fire")
	}
	return n, nil
}

func TestJSONLParallelReadError(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 200; i++ {
		data := randomJSONL(rng, 1+rng.IntN(30))
		data = data[:rng.IntN(len(data)+1)]
		read := func(cfg jsonl.ParallelConfig) string {
			_, err := readJSONLConfig(&failingReader{bytes.NewReader(data), len(data) + 100}, int64(len(data)), cfg)
			return fmt.Sprint(err)
		}
		seq := read(lineByLine)
		if par := read(jsonl.ParallelConfig{Chunk: []int{64, 100, 1000}[rng.IntN(3)], Workers: 2}); par != seq {
			t.Fatalf("read line by line: %s\nin parallel: %s\ninput:\n%s", seq, par, data)
		}
	}
}
