package lwt

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/register"
)

// TestWriteKeysRoundTrip: keys with characters that need escaping come
// back from the written history as they went in, and every line of the
// JSONL is valid JSON (Go's quoting, with \x01, is not).
func TestWriteKeysRoundTrip(t *testing.T) {
	for _, key := range []string{"x", "a\x01b", "tab\there", `quote"and\back`, "é€", "bell\a"} {
		ops := []Op{
			{Process: 0, Kind: register.Write, Key: key, Value: 1, Call: 1, Return: 2, Outcome: register.OK},
			{Process: 1, Kind: register.Read, Key: key, Value: 1, Call: 3, Return: 4, Outcome: register.OK},
		}
		for name, write := range map[string]func(*bytes.Buffer, []Op) error{
			"edn":   func(b *bytes.Buffer, o []Op) error { return WriteEDN(b, o) },
			"jsonl": func(b *bytes.Buffer, o []Op) error { return WriteJSONL(b, o) },
		} {
			var buf bytes.Buffer
			if err := write(&buf, ops); err != nil {
				t.Fatal(err)
			}
			if name == "jsonl" {
				for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
					if !json.Valid([]byte(line)) {
						t.Errorf("key %q: not JSON: %s", key, line)
					}
				}
			}
			back, _ := readWith(t, buf.String(), name, ReadOptions{})
			if len(back) != 2 || back[0].Key != key || back[1].Key != key {
				t.Errorf("%s, key %q: read back %+v", name, key, back)
			}
		}
	}
}
