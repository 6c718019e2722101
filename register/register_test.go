package register

import "testing"

// The names are Jepsen's :f and :type, which the readers parse and the
// reports print; an unknown value says what it is.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Read.String(), "read"},
		{Write.String(), "write"},
		{CAS.String(), "cas"},
		{Kind(9).String(), "RegisterKind(9)"},
		{OK.String(), "ok"},
		{Fail.String(), "fail"},
		{Info.String(), "info"},
		{Outcome(7).String(), "Outcome(7)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// An operation without an invocation may have been invoked before
	// any other returned, and one without a completion after any other.
	if NoCall >= NoReturn {
		t.Errorf("NoCall %d, NoReturn %d", NoCall, NoReturn)
	}
}
