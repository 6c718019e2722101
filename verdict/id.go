package verdict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// An ID is a name the input gave a session, a key or a transaction, as
// every vertical's report refers to it. In JSON it is a number when it is
// the canonical decimal form of an integer (inputs with integer sessions,
// keys or ids are read that way; a history does not tell 5 from "5") and
// a string otherwise.
type ID string

// MarshalJSON writes id as a JSON number or string.
func (id ID) MarshalJSON() ([]byte, error) {
	if isInt(string(id)) {
		return []byte(id), nil
	}
	return json.Marshal(string(id))
}

// UnmarshalJSON reads a JSON number or string.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
		return nil
	}
	if !isInt(string(b)) {
		return fmt.Errorf("verdict: id %s is neither an integer nor a string", b)
	}
	*id = ID(b)
	return nil
}

// isInt reports whether s is the canonical decimal form of an int64.
func isInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}
