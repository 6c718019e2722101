package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSQLStopsSayWhere: a SQL check stopped by its timeout exits 3 and
// says which stage it reached, in text and in JSON, for one level and for
// every level.
func TestSQLStopsSayWhere(t *testing.T) {
	const path = "../../examples/sql-phantom-ser.jsonl"
	for _, args := range [][]string{
		{"check", "--timeout", "1ns", path},
		{"check", "--timeout", "1ns", "--level", "all", path},
		{"explain", "--timeout", "1ns", "--level", "ser", path},
	} {
		code, out, errs := runCmd(args...)
		if code != exitNoVerdict || !strings.Contains(out, "no verdict: timed out after 1ns in stage parse") || !strings.Contains(out, "--timeout 0 for no limit") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, out, errs := runCmd("check", "--json", "--timeout", "1ns", path)
	var got struct {
		Satisfied *bool
		Verdict   string
		Reason    string
		Stats     struct{ Stage string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitNoVerdict || got.Satisfied != nil || got.Verdict != "no verdict" || got.Stats.Stage != "parse" || !strings.Contains(got.Reason, "in stage parse") {
		t.Errorf("--json: exit %d, %+v, %v\n%s%s", code, got, err, out, errs)
	}
}

// TestWorse: several SQL checks' statuses combine as --level all's do.
func TestWorse(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{
		{exitSatisfied, exitNoVerdict, exitNoVerdict},
		{exitNoVerdict, exitViolated, exitViolated},
		{exitViolated, exitNoVerdict, exitViolated},
		{exitViolated, exitSatisfied, exitViolated},
		{exitViolated, exitBadInput, exitBadInput},
		{exitSatisfied, exitSatisfied, exitSatisfied},
	} {
		if got := worse(c.a, c.b); got != c.want {
			t.Errorf("worse(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
