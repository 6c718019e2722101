package sqlcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format/sqljsonl"
	"github.com/isocheck/isocheck/sqlhistory"
)

// phantomHistory returns a history of pairs of SERIALIZABLE transactions,
// and fillers more: in each pair, both transactions select every row of
// table p, returning those the earlier pairs inserted, and each inserts a
// row that the other's select would have returned (a phantom write skew,
// each pair's on its own); the fillers update counters one after another,
// as a serial execution would. The only minimal counterexample is the
// first pair: every later one reads from the pairs before it.
func phantomHistory(t testing.TB, pairs, fillers int) *sqlhistory.History {
	t.Helper()
	var b strings.Builder
	const counters = 10
	for j := 0; j < counters; j++ {
		fmt.Fprintf(&b, `{"init": [{"table": "c", "key": %d, "id": "c%d-init", "row": {"id": %d, "v": 0}}]}`+"\n", j, j, j)
	}
	filler := func(k int) {
		j := k % counters
		prev := fmt.Sprintf("c%d-init", j)
		if k >= counters {
			prev = fmt.Sprintf("f%d", k-counters)
		}
		fmt.Fprintf(&b, `{"session": "f%d", "id": "F%d", "level": "SER", "events": [`+
			`{"update": "c", "where": "id = %d", "rows": [{"key": %d, "read": %q, "id": "f%d", "row": {"id": %d, "v": %d}}]}]}`+"\n",
			j, k, j, j, prev, k, j, k+1)
	}
	// seen are the rows of table p the pairs so far inserted.
	var seen []string
	pair := func(i int) {
		rows := strings.Join(seen, ", ")
		for _, side := range []string{"a", "b"} {
			fmt.Fprintf(&b, `{"session": "%s%d", "id": "%s%d", "level": "SER", "events": [`+
				`{"select": "p", "where": "g >= 0", "rows": [%s]}, `+
				`{"insert": "p", "rows": [{"key": "%s%d", "id": "%s%d", "row": {"g": %d}}]}]}`+"\n",
				side, i, strings.ToUpper(side), i, rows, side, i, side, i, i)
		}
		for _, side := range []string{"a", "b"} {
			seen = append(seen, fmt.Sprintf(`{"key": "%s%d", "id": "%s%d"}`, side, i, side, i))
		}
	}
	k := 0
	for i := 0; i < pairs; i++ {
		pair(i)
		for ; k < fillers*(i+1)/pairs; k++ {
			filler(k)
		}
	}
	for ; k < fillers; k++ {
		filler(k)
	}
	h, err := sqljsonl.Read(strings.NewReader(b.String()), "phantom")
	if err != nil {
		t.Fatalf("phantom history: %v\n%s", err, b.String())
	}
	return h
}
