package lwt_test

import (
	"encoding/json"
	"testing"

	"github.com/isocheck/isocheck/lwt"
)

// TestValueJSON: a register's value is a JSON number, and nil (Nil) is
// null, both ways.
func TestValueJSON(t *testing.T) {
	for _, v := range []lwt.Value{0, 7, -3, lwt.Value(lwt.Nil)} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := "null"; int64(v) == lwt.Nil && string(b) != want {
			t.Errorf("Nil written as %s, want %s", b, want)
		}
		var back lwt.Value
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("%d written as %s read back as %d (%v)", v, b, back, err)
		}
	}
	var v lwt.Value
	if err := json.Unmarshal([]byte(`"x"`), &v); err == nil {
		t.Errorf("a string read as the value %d", v)
	}
}
