package online_test

import (
	"context"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/online"
	"github.com/isocheck/isocheck/verdict"
)

// FuzzChecker: whatever bytes come, in whatever pieces, Check neither
// panics nor reports anything but a violated part of the lines read.
func FuzzChecker(f *testing.F) {
	f.Add([]byte("{\"session\": 1, \"ops\": [[\"w\", \"x\", 1]]}\n{\"session\": 2, \"ops\": [[\"r\", \"x\", 1], [\"w\", \"x\", 2]]}\n{\"session\": 3, \"ops\": [[\"r\", \"x\", 1], [\"w\", \"x\", 3]]}\n"), uint8(7), false)
	f.Add([]byte("{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0}\n{:type :ok, :f :txn, :value [[:append :x 1]], :process 0}\n{:type :ok, :f :txn, :value [[:r :x [1 2]]], :process 1}\n"), uint8(3), true)
	f.Add([]byte("\n\n{\"session\"\n\xff\x00\n"), uint8(1), false)
	f.Fuzz(func(t *testing.T, input []byte, piece uint8, edn bool) {
		fm := format.JSONL
		if edn {
			fm = format.EDN
		}
		c, err := online.New(online.Options{Level: level.SER, Format: fm, Name: "fuzz", Window: 2})
		if err != nil {
			t.Fatal(err)
		}
		n := int(piece%16) + 1
		for len(input) > 0 {
			k := min(n, len(input))
			c.Write(input[:k])
			input = input[k:]
			v, err := c.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if v != nil && (v.Result.Verdict != verdict.Violated || v.History == nil || v.FromLine > v.Lines || v.Lines > c.Stats().Lines) {
				t.Fatalf("a report of lines %d-%d (of %d read): %v", v.FromLine+1, v.Lines, c.Stats().Lines, v.Result.Outcome)
			}
		}
		c.Wait()
	})
}
