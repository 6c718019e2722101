package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/isocheck/isocheck/bench/harness"
	"github.com/isocheck/isocheck/format"
)

func TestCompareFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []harness.Comparison
	}{
		{"none", nil, nil},
		{"text by default", []string{"--compare", "a {}"}, []harness.Comparison{{Command: "a {}", Format: format.Text}}},
		{"format before", []string{"--compare-format", "dbcop", "--compare", "a {}"}, []harness.Comparison{{Command: "a {}", Format: format.DBCop}}},
		{"format after applies to those without one", []string{"--compare", "a {}", "--compare-format", "edn"}, []harness.Comparison{{Command: "a {}", Format: format.EDN}}},
		{"each its own", []string{"--compare-format", "dbcop", "--compare", "a", "--compare-format", "jsonl", "--compare", "b"},
			[]harness.Comparison{{Command: "a", Format: format.DBCop}, {Command: "b", Format: format.JSONL}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c compareFlags
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.Func("compare", "", c.compare)
			fs.Func("compare-format", "", c.format)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got := c.comparisons()
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("comparison %d: %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--scale", "huge"},
		{"--compare-format", "cobra", "--compare", "x"},
		{"--compare", ""},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
}
