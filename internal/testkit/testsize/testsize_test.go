package testsize

import "testing"

func TestN(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want int
	}{{"", 300}, {"0", 300}, {"yes", 300}, {"1", 3000}} {
		t.Setenv(Env, tt.env)
		if got := N(300, 3000); got != tt.want {
			t.Errorf("%s=%q: N(300, 3000) = %d, want %d", Env, tt.env, got, tt.want)
		}
		if got := Long(); got != (tt.want == 3000) {
			t.Errorf("%s=%q: Long() = %v", Env, tt.env, got)
		}
	}
}
