package text_test

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/history"
)

// polySILine is the pattern that PolySI's text loader (TextHistoryLoader)
// requires each line to match whole; each number must then fit a Java
// long. It has no minus sign: PolySI cannot read aborted transactions,
// which the text format writes with the id -1.
var polySILine = regexp.MustCompile(`^(r|w)\((\d+),(\d+),(\d+),(\d+)\)$`)

// checkPlumeLine reports what is wrong with line as AWDIT's Plume reader
// (parse_plume_history) reads a line: r or w, then "(" and ")" around four
// comma-separated decimal fields, key and value unsigned, the session
// unsigned and the transaction a signed 64-bit integer (-1 for aborted).
func checkPlumeLine(line string) string {
	if len(line) < 1 || (line[0] != 'r' && line[0] != 'w') {
		return "does not start with r or w"
	}
	inner, ok := strings.CutPrefix(line[1:], "(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	}
	if !ok {
		return "has no (...)"
	}
	parts := strings.Split(inner, ",")
	if len(parts) != 4 {
		return "does not have 4 fields"
	}
	for i, p := range parts[:3] {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return "field " + strconv.Itoa(i+1) + " is not unsigned: " + err.Error()
		}
	}
	if _, err := strconv.ParseInt(parts[3], 10, 64); err != nil {
		return "the transaction is not an integer: " + err.Error()
	}
	return ""
}

// TestWriteTextGrammar checks the lines Write writes in text format against
// the readers of the tools that define the format: AWDIT's Plume reader for
// every history, PolySI's loader for histories without aborted
// transactions.
func TestWriteTextGrammar(t *testing.T) {
	cases := formattest.DbcopWriteCases(t)
	b := history.NewBuilder(0)
	b.AddTxn(history.Txn{Session: b.Session("x"), Status: history.Committed}, []history.Op{
		{Kind: history.Write, Key: b.Key("big"), Value: b.StringValue("18446744073709551615")},
	})
	cases["big"] = b.History()
	for name, h := range cases {
		aborted := false
		for i := range h.Txns {
			aborted = aborted || h.Txns[i].Status == history.Aborted
		}
		var buf bytes.Buffer
		if err := format.Write(&buf, h, format.Text); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sc := bufio.NewScanner(&buf)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if msg := checkPlumeLine(line); msg != "" {
				t.Errorf("%s: line %d %q: AWDIT: %s", name, n, line, msg)
			}
			if aborted {
				continue
			}
			m := polySILine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: line %d %q: PolySI: invalid format", name, n, line)
				continue
			}
			for _, f := range m[2:] {
				if _, err := strconv.ParseInt(f, 10, 64); err != nil {
					t.Errorf("%s: line %d %q: PolySI: %v", name, n, line, err)
				}
			}
		}
	}
}
