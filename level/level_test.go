package level

import "testing"

func TestParseAndImplies(t *testing.T) {
	for _, l := range All() {
		got, err := Parse(l.String())
		if err != nil || got != l {
			t.Errorf("Parse(%q) = %v, %v", l, got, err)
		}
	}
	if _, err := Parse("snapshot"); err == nil {
		t.Error("Parse accepted an unknown name")
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
