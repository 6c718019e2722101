// Package historytest holds helpers for tests that write their histories
// inline.
package historytest

import (
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/history"
)

// JSONL parses a history written in the native JSONL format (leading and
// trailing blank lines are ignored) and fails the test if it is invalid.
func JSONL(t testing.TB, jsonl string) *history.History {
	t.Helper()
	h, err := format.Read(strings.NewReader(strings.TrimSpace(jsonl)+"\n"), "test.jsonl", format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
