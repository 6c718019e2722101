package online_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
)

// A history is written a line at a time, and checked as it comes: the
// lost update is reported once its second transaction completes.
func ExampleChecker() {
	c, err := online.New(online.Options{Level: level.SI, Format: format.JSONL, Name: "history.jsonl"})
	if err != nil {
		panic(err)
	}
	stream := []string{
		`{"session": 1, "ops": [["w", "x", 1]]}`,
		`{"session": 2, "ops": [["r", "x", 1], ["w", "x", 2]]}`,
		`{"session": 3, "ops": [["r", "x", 1], ["w", "x", 3]]}`,
	}
	for i, line := range stream {
		fmt.Fprintln(c, line)
		v, err := c.Check(context.Background())
		if err != nil {
			panic(err)
		}
		if v != nil {
			fmt.Printf("after line %d: lines %d-%d violate %v: %v\n", i+1, v.FromLine+1, v.Lines, v.Result.Level, strings.ToLower(v.Result.Verdict.String()))
			break
		}
		fmt.Printf("after line %d: no violation so far\n", i+1)
	}
	c.Wait()
	// Output:
	// after line 1: no violation so far
	// after line 2: no violation so far
	// after line 3: lines 1-3 violate SI: violated
}
