package workload

import "testing"

func TestParseDistribution(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Distribution
		err  bool
	}{
		{in: "uniform", want: Uniform},
		{in: "zipf", want: Zipf},
		{in: "zipfian", want: Zipf},
		{in: "hotspot", want: Hotspot},
		{in: "gaussian", err: true},
	} {
		got, err := ParseDistribution(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseDistribution(%q) accepted it", tc.in)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDistribution(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.in != "zipfian" && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}
