package verdict_test

import (
	"os"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// forbiddenTable is the Markdown table of docs/checking.md's "Anomalies"
// section: a row per anomaly (in the order of Names), a column per level
// from the weakest, and ✗ where the level forbids the anomaly.
func forbiddenTable() string {
	levels := level.All()
	var b strings.Builder
	b.WriteString("| anomaly |")
	for i := len(levels) - 1; i >= 0; i-- {
		b.WriteString(" " + levels[i].String() + " |")
	}
	b.WriteString("\n|---|")
	for range levels {
		b.WriteString(":-:|")
	}
	b.WriteString("\n")
	for _, n := range verdict.Anomalies() {
		b.WriteString("| " + n.String() + " |")
		for i := len(levels) - 1; i >= 0; i-- {
			if verdict.Forbids(levels[i], n) {
				b.WriteString(" ✗ |")
			} else {
				b.WriteString("   |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestDocTable requires docs/checking.md to print the table of the
// anomalies each level forbids as Forbids gives it, so that the two
// cannot drift apart.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/checking.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := forbiddenTable(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/checking.md lacks the table of forbidden anomalies; it should read:\n%s", want)
	}
}
