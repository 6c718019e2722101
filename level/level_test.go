package level

import "testing"

func TestParseAndImplies(t *testing.T) {
	for _, l := range All() {
		got, err := Parse(l.String())
		if err != nil || got != l {
			t.Errorf("Parse(%q) = %v, %v", l, got, err)
		}
	}
	for _, bad := range []string{"snapshots", "", "all", "repeatable-read"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse accepted the unknown name %q", bad)
		}
	}
	cases := []struct {
		a, b Level
		want bool
	}{
		{SSER, SER, true}, {SER, SI, true}, {SI, PC, true}, {PC, CC, true}, {CC, RA, true}, {RA, RC, true},
		{SSER, RC, true}, {SI, SER, false}, {RC, RA, false}, {SI, SI, true},
	}
	for _, c := range cases {
		if got := c.a.Implies(c.b); got != c.want {
			t.Errorf("%v.Implies(%v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestParseLongNames(t *testing.T) {
	cases := map[string]Level{
		"serializable": SER, "Serializability": SER,
		"snapshot": SI, "snapshot-isolation": SI, "SNAPSHOT_ISOLATION": SI,
		"strict-serializable": SSER, "strict serializability": SSER,
		"prefix-consistency": PC, "causal": CC, "causal-consistency": CC,
		"read-atomic": RA, "read_committed": RC, "READ COMMITTED": RC,
	}
	for name, want := range cases {
		if got, err := Parse(name); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
}
