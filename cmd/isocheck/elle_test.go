package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionOrderModels is Elle's issue #17: a process that appends to x
// and then does not see its own append breaks the strong-session models
// only. With session order isocheck's SI (strong-session snapshot
// isolation) is violated; with --no-session-order, snapshot isolation
// holds, and --elle names each model accordingly.
func TestSessionOrderModels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	err := os.WriteFile(path, []byte(`{"session": "p", "ops": [["append", "x", 1]]}
{"session": "p", "ops": [["r", "x", null]]}
{"session": "q", "ops": [["r", "x", [1]]]}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		code  int
		model string
		valid any
	}{
		{[]string{"--level", "si"}, exitViolated, "strong-session-snapshot-isolation", false},
		{[]string{"--level", "si", "--no-session-order"}, exitSatisfied, "snapshot-isolation", true},
		{[]string{"--level", "ser"}, exitViolated, "strong-session-serializable", false},
		{[]string{"--level", "ser", "--no-session-order"}, exitSatisfied, "serializable", true},
	}
	for _, tc := range tests {
		args := append([]string{"check", "--elle"}, tc.args...)
		code, out, errs := runCmd(append(args, path)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
		}
		if !strings.Contains(out, "elle: "+tc.model+" ") {
			t.Errorf("%v: no line naming %s:\n%s", tc.args, tc.model, out)
		}
		code, out, _ = runCmd(append(append(args, "--json"), path)...)
		var got struct {
			Elle struct {
				Valid any      `json:"valid?"`
				Not   []string `json:"not"`
			} `json:"elle"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != tc.code {
			t.Fatalf("%v --json: exit %d, %v\n%s", tc.args, code, err, out)
		}
		if got.Elle.Valid != tc.valid {
			t.Errorf("%v --json: valid? %v, want %v", tc.args, got.Elle.Valid, tc.valid)
		}
		if tc.valid == false && (len(got.Elle.Not) == 0 || got.Elle.Not[0] != tc.model) {
			t.Errorf("%v --json: not %v, want %s first", tc.args, got.Elle.Not, tc.model)
		}
	}
}
