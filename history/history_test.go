package history

import "testing"

func TestBuilderInterns(t *testing.T) {
	b := NewBuilder(Null, "h.jsonl")
	x1, x2, y := b.Key("x"), b.Key("x"), b.Key("y")
	if x1 != x2 || x1 == y {
		t.Error("Key does not intern by name")
	}
	if b.IntKey(5) != b.Key("5") {
		t.Error("IntKey(5) and Key(\"5\") differ")
	}
	if b.IntSession(2) != b.Session("2") || b.Session("a") == b.Session("b") {
		t.Error("sessions are not interned by name")
	}
	v := b.StringValue("hello")
	if v < StringBase || b.StringValue("hello") != v {
		t.Errorf("StringValue = %d, want a stable value >= StringBase", v)
	}
	b.Grow(10, 100)
	s := b.Session("a")
	t1 := b.AddTxn(Txn{ID: "t1", Session: s, Start: NoTime, End: NoTime, Pos: 3}, []Op{{Kind: Write, Key: b.Key("x"), Value: v}})
	t2 := b.AddTxn(Txn{Session: s, Start: 1, End: 2, Pos: 4}, []Op{{Kind: Read, Key: b.Key("x"), Value: Null}})
	h := b.History()

	cases := []struct{ got, want string }{
		{h.Name(t1), "t1"},
		{h.Name(t2), "T1"},
		{h.Where(t1), "h.jsonl:3"},
		{h.FormatKey(0), "x"},
		{h.FormatValue(v), `"hello"`},
		{h.FormatValue(Null), "null"},
		{h.FormatValue(42), "42"},
		{h.SessionName(int(s)), "a"},
		{h.OpsOf(t1)[0].String(), "w(0,4611686018427387904)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if len(h.Sessions[s]) != 2 || h.Sessions[s][0] != int32(t1) || h.Sessions[s][1] != int32(t2) {
		t.Errorf("session order %v, want [%d %d]", h.Sessions[s], t1, t2)
	}
	if h.Txns[t1].HasTime() || !h.Txns[t2].HasTime() {
		t.Error("HasTime wrong")
	}
	h.PosIsOffset = true
	if got := h.Where(t2); got != "h.jsonl@4" {
		t.Errorf("Where with offsets = %q", got)
	}
}

func TestBuilderGrow(t *testing.T) {
	tests := []struct {
		name      string
		txns, ops int
	}{
		{"none", 0, 0},
		{"negative", -5, -1},
		{"some", 3, 10},
		{"large", 1 << 16, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(Null)
			s := b.Session("a")
			b.AddTxn(Txn{Session: s}, []Op{{Kind: Write, Key: b.Key("x"), Value: 1}})
			b.Grow(tt.txns, tt.ops)
			b.AddTxn(Txn{Session: s}, []Op{{Kind: Read, Key: b.Key("x"), Value: 1}})
			h := b.History()
			if cap(h.Txns) < 1+max(tt.txns, 0) || cap(h.Ops) < 1+max(tt.ops, 0) {
				t.Errorf("capacity %d txns, %d ops after Grow(%d, %d)", cap(h.Txns), cap(h.Ops), tt.txns, tt.ops)
			}
			if len(h.Txns) != 2 || len(h.Ops) != 2 || h.Ops[0].Kind != Write || h.Ops[1].Kind != Read || h.Ops[1].Value != 1 {
				t.Errorf("contents changed: %+v %+v", h.Txns, h.Ops)
			}
		})
	}
}

func TestWithoutSessionOrder(t *testing.T) {
	b := NewBuilder(Null)
	p := b.Session("p")
	b.AddTxn(Txn{Session: p}, []Op{{Kind: Write, Key: b.Key("x"), Value: 1}})
	b.AddTxn(Txn{Session: p}, []Op{{Kind: Read, Key: b.Key("x"), Value: Null}})
	h := b.History()
	c := h.WithoutSessionOrder()
	if len(c.Sessions) != 2 || c.Txns[1].Session != 1 || c.SessionName(1) != "p/1" {
		t.Errorf("sessions %v, names %v", c.Sessions, c.SessionNames)
	}
	if len(h.Sessions) != 1 || h.Txns[1].Session != 0 {
		t.Errorf("the original changed: %v", h.Sessions)
	}
}
