package edn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// decodeAll reads every top-level form of src, whole and a byte at a time,
// and checks that both give the same.
func decodeAll(t testing.TB, src string) ([]any, []Pos, error) {
	t.Helper()
	vals, pos, err := readAll(NewDecoderBytes([]byte(src)))
	v2, p2, err2 := readAll(NewDecoder(iotest.OneByteReader(strings.NewReader(src))))
	if fmt.Sprint(err) != fmt.Sprint(err2) || !equal(vals, v2) || !reflect.DeepEqual(pos, p2) {
		t.Fatalf("%q: whole %v %v %v; streamed %v %v %v", src, vals, pos, err, v2, p2, err2)
	}
	return vals, pos, err
}

func readAll(d *Decoder) ([]any, []Pos, error) {
	var vals []any
	var pos []Pos
	for {
		v, err := d.Decode()
		if err == io.EOF {
			return vals, pos, nil
		}
		if err != nil {
			return vals, pos, err
		}
		vals = append(vals, v)
		pos = append(pos, d.Pos())
	}
}

// equal is reflect.DeepEqual where NaN equals NaN.
func equal(a, b any) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		src  string
		want []any
	}{
		{"", nil},
		{" ,\n; only a comment\n", nil},
		{"nil true false", []any{nil, true, false}},
		{"0 -7 +3 42N 9223372036854775807 -9223372036854775808", []any{int64(0), int64(-7), int64(3), int64(42), int64(math.MaxInt64), int64(math.MinInt64)}},
		{"9223372036854775808 -000123456789012345678901234567890N +99999999999999999999", []any{BigInt("9223372036854775808"), BigInt("-123456789012345678901234567890"), BigInt("99999999999999999999")}},
		{"1.5 -2e3 1E-2 3.25M ##Inf ##-Inf", []any{1.5, -2000.0, 0.01, Decimal("3.25"), math.Inf(1), math.Inf(-1)}},
		{`"a" "" "tab\there \"q\" \\ \u00e9" "two
lines"`, []any{"a", "", "tab\there \"q\" \\ é", "two\nlines"}},
		{`\a \newline \space \u00e9 \é \(`, []any{Char('a'), Char('\n'), Char(' '), Char('é'), Char('é'), Char('(')}},
		{":type :jepsen/op sym ns/sym + - .5x", []any{Keyword("type"), Keyword("jepsen/op"), Symbol("sym"), Symbol("ns/sym"), Symbol("+"), Symbol("-"), Symbol(".5x")}},
		{"[1 [2 3] []] (a, b) #{1 2} {}", []any{[]any{int64(1), []int64{2, 3}, []any{}}, List{Symbol("a"), Symbol("b")}, Set{int64(1), int64(2)}, Map{}}},
		{"[1 2 :a] [-1 - 2] [1 1.5] [1 99999999999999999999] [5000 -7 +8] [1 nil]", []any{[]any{int64(1), int64(2), Keyword("a")}, []any{int64(-1), Symbol("-"), int64(2)}, []any{int64(1), 1.5}, []any{int64(1), BigInt("99999999999999999999")}, []int64{5000, -7, 8}, []any{int64(1), nil}}},
		{"{:type :ok, :value [[:r :x nil] [:append 1 2]]}", []any{Map{{Keyword("type"), Keyword("ok")}, {Keyword("value"), []any{[]any{Keyword("r"), Keyword("x"), nil}, []any{Keyword("append"), int64(1), int64(2)}}}}}},
		{`#inst "1985-04-12T23:20:50.52Z" #uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"`, []any{Tagged{"inst", "1985-04-12T23:20:50.52Z"}, Tagged{"uuid", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}}},
		{"#jepsen.history.Op{:index 0, :process :nemesis}", []any{Tagged{"jepsen.history.Op", Map{{Keyword("index"), int64(0)}, {Keyword("process"), Keyword("nemesis")}}}}},
		{"#_ 1 2 [3 #_ 4] [#_ #_ 5 6] {:a #_ :b 1} #_{:x 1}", []any{int64(2), []int64{3}, []any{}, Map{{Keyword("a"), int64(1)}}}},
		{"1;comment\n2", []any{int64(1), int64(2)}},
	}
	for _, tc := range tests {
		got, _, err := decodeAll(t, tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if !equal(got, tc.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", tc.src, got, tc.want)
		}
	}
}

func TestDecodePositions(t *testing.T) {
	_, pos, err := decodeAll(t, "1\n\n  {:a\n 2} ; c\n#_ x\n\"s\ns\" 3")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pos{{1, 0}, {3, 5}, {6, 22}, {7, 28}}
	if !reflect.DeepEqual(pos, want) {
		t.Errorf("positions %v, want %v", pos, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		msg  string
	}{
		{"[1 2", 1, `unexpected end of input: missing ']'`},
		{"\n{:a 1\n", 3, `missing '}'`},
		{"(1]", 1, `unexpected ']'`},
		{"}", 1, `unexpected '}'`},
		{"{:a}", 1, "a map needs an even number of forms"},
		{strings.Repeat("[", 100), 1, "nested deeper than 64"},
		{"1x", 1, `bad number "1x"`},
		{"0x10", 1, `bad number "0x10"`},
		{"1.5.5", 1, `bad number "1.5.5"`},
		{": x", 1, "empty keyword"},
		{`"abc`, 1, "unterminated string"},
		{`"a\qb"`, 1, `bad escape \q`},
		{`"\u12"`, 1, `bad \u escape`},
		{"# x", 1, "# without a tag"},
		{"#1 x", 1, "bad tag #1"},
		{"##Foo", 1, "unknown symbolic value ##Foo"},
		{"\\abc", 1, `bad character \abc`},
		{"#inst", 1, "unexpected end of input"},
		{"#_", 1, "unexpected end of input"},
		{"[#_]", 1, "unexpected ']'"},
		{strings.Repeat("7", 100) + "x", 1, `bad number "777777777777777777777777777777777777"… (101 bytes)`},
		// What an error quotes of the input, it escapes.
		{"#1\x1b x", 1, `bad tag #1\x1b`},
		{"##F\x00o", 1, `unknown symbolic value ##F\x00o`},
		{"\\a\x1bc", 1, `bad character \a\x1bc`},
		{"\\a\u202ebc", 1, `bad character \a\u202ebc`},
		{"1\x1b[2J", 1, `bad number "1\x1b"`},
	}
	for _, tc := range tests {
		_, _, err := decodeAll(t, tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: got %v, want line %d: %s", tc.src, err, tc.line, tc.msg)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x00\x1b\u202e") {
			t.Errorf("%q: the error holds a control character: %q", tc.src, err)
		}
	}
}

// The elements of a history vector are read one at a time.
func TestOpenSeq(t *testing.T) {
	src := "; history\n[{:index 0}\n #_{:index 9}\n {:index 1}\n]\n"
	for _, d := range []*Decoder{NewDecoderBytes([]byte(src)), NewDecoder(iotest.OneByteReader(strings.NewReader(src)))} {
		ok, err := d.OpenSeq()
		if !ok || err != nil {
			t.Fatalf("OpenSeq: %v %v", ok, err)
		}
		var lines []int
		for d.More() {
			v, err := d.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(Map); !ok {
				t.Fatalf("got %#v", v)
			}
			lines = append(lines, d.Pos().Line)
		}
		if _, err := d.Decode(); err != io.EOF {
			t.Errorf("Decode at the closing bracket: %v", err)
		}
		if err := d.CloseSeq(); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Decode(); err != io.EOF {
			t.Errorf("after the vector: %v", err)
		}
		if !reflect.DeepEqual(lines, []int{2, 4}) {
			t.Errorf("lines %v", lines)
		}
	}
	d := NewDecoderBytes([]byte("{:a 1}"))
	if ok, err := d.OpenSeq(); ok || err != nil {
		t.Errorf("OpenSeq on a map: %v %v", ok, err)
	}
	if v, err := d.Decode(); err != nil || !equal(v, Map{{Keyword("a"), int64(1)}}) {
		t.Errorf("after OpenSeq: %v %v", v, err)
	}
	d = NewDecoderBytes([]byte("[{:a 1} {:b"))
	d.OpenSeq()
	d.Decode()
	if !d.More() {
		t.Error("More before an unfinished form")
	}
	if _, err := d.Decode(); err == nil || !strings.Contains(err.Error(), "missing '}'") {
		t.Errorf("got %v", err)
	}
	d = NewDecoderBytes([]byte("[1 2"))
	d.OpenSeq()
	for d.More() {
		if _, err := d.Decode(); err != nil {
			if !strings.Contains(err.Error(), "missing ']'") {
				t.Errorf("got %v", err)
			}
			break
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

// A form longer than the limit is an error; the forms before it are read
// one at a time, without holding them.
func TestLimits(t *testing.T) {
	z := &zeros{}
	d := NewDecoder(z)
	d.SetLimits(1<<20, 0)
	_, err := d.Decode()
	if err == nil || !strings.Contains(err.Error(), "an EDN form longer than 1048576 bytes, from byte 0 on") {
		t.Errorf("got %v", err)
	}
	if z.n > 3<<20 {
		t.Errorf("read %d bytes", z.n)
	}
	ev := "{:type :invoke, :f :read, :process 0}\n"
	src := "[" + strings.Repeat(ev, 100) + "\n{:value " + strings.Repeat("1", 200) + "}]"
	d = NewDecoder(iotest.HalfReader(strings.NewReader(src)))
	d.SetLimits(100, 0)
	d.OpenSeq()
	n := 0
	for d.More() {
		if _, err = d.Decode(); err != nil {
			break
		}
		n++
	}
	want := fmt.Sprintf("line 102 (byte offset %d): an EDN form longer than 100 bytes, from byte %[1]d on", 1+100*len(ev)+1)
	if n != 100 || err == nil || err.Error() != want {
		t.Errorf("after %d forms: got %v, want %s", n, err, want)
	}
	if cap(d.buf) > 4*readChunk {
		t.Errorf("buffer of %d bytes", cap(d.buf))
	}
}

// Read errors come back as they are.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	d := NewDecoder(io.MultiReader(strings.NewReader("{:a 1} {:b"), iotest.ErrReader(boom)))
	if v, err := d.Decode(); err != nil || !equal(v, Map{{Keyword("a"), int64(1)}}) {
		t.Fatalf("got %v %v", v, err)
	}
	if _, err := d.Decode(); !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
}

func TestMapGet(t *testing.T) {
	m := Map{{Keyword("a"), int64(1)}, {[]any{}, 2}, {"b", nil}}
	if v, ok := m.Get(Keyword("a")); !ok || v != int64(1) {
		t.Errorf("Get :a = %v %v", v, ok)
	}
	if _, ok := m.Get([]any{}); ok {
		t.Error("a vector key matched")
	}
	if v, ok := m.Get("b"); !ok || v != nil {
		t.Errorf("Get b = %v %v", v, ok)
	}
	if _, ok := m.Get("c"); ok {
		t.Error("Get c")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"{:type :invoke, :f :txn, :value [[:r :x nil] [:w :y 2]], :process 3, :time 12345, :index 7}\n",
		"[{:type :ok, :value [[:append 1 2] [:r 1 [1 2]]]} #jepsen.history.Op{:index 1}]",
		`#{1 2} #_ 3 \a \newline "s\n\u00e9" 1.5 -3N 1.5M (1 2) ##Inf #inst "2020" ; c`,
		"[1 [2 [3]] {:a {:b #{}}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, _, err := readAll(NewDecoderBytes(data))
		streamed, _, err2 := readAll(NewDecoder(iotest.OneByteReader(bytes.NewReader(data))))
		if fmt.Sprint(err) != fmt.Sprint(err2) || !equal(whole, streamed) {
			t.Fatalf("whole %#v %v; streamed %#v %v", whole, err, streamed, err2)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error %v (%T) without a line", err, err)
			}
		}
		// The elements of a top-level sequence read one at a time are its
		// elements.
		d := NewDecoderBytes(data)
		if ok, err := d.OpenSeq(); ok && err == nil {
			var elems []any
			var eerr error
			for d.More() {
				v, err := d.Decode()
				if err != nil {
					eerr = err
					break
				}
				elems = append(elems, v)
			}
			if eerr == nil {
				eerr = d.CloseSeq()
			}
			if eerr == nil && err == nil && len(whole) > 0 {
				if s, _ := Seq(whole[0]); !equal(s, elems) && !(len(s) == 0 && len(elems) == 0) {
					t.Fatalf("elements %#v, whole %#v", elems, whole[0])
				}
			}
		}
	})
}
