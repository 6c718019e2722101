package verdict

import (
	"encoding/json"
	"testing"
)

// An ID is a JSON number exactly when it is an integer's canonical
// decimal form, and reads back as itself.
func TestIDJSON(t *testing.T) {
	for _, c := range []struct {
		id   ID
		json string
	}{
		{"7", `7`}, {"-7", `-7`}, {"07", `"07"`}, {"x", `"x"`}, {"", `""`}, {"99999999999999999999", `"99999999999999999999"`},
	} {
		b, err := json.Marshal(c.id)
		if err != nil || string(b) != c.json {
			t.Errorf("%q: JSON %s, %v; want %s", c.id, b, err, c.json)
		}
		var back ID
		if err := json.Unmarshal(b, &back); err != nil || back != c.id {
			t.Errorf("%s: decoded %q, %v; want %q", b, back, err, c.id)
		}
	}
	var id ID
	if err := json.Unmarshal([]byte(`1.5`), &id); err == nil {
		t.Errorf("1.5 read as the id %q, want an error", id)
	}
}
