package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
)

// twoWriters is a history of two sessions that each read x from the
// initial state and write it: a lost update if both wrote (SI broken, CC
// kept), else two reads of the initial state (every level kept).
func twoWriters(write bool) *history.History {
	b := history.NewBuilder(history.Null)
	x, y := b.Key("x"), b.Key("y")
	for i, s := range []string{"a", "b"} {
		op := history.Op{Kind: history.Write, Key: x, Value: history.Value(i + 1)}
		if !write {
			op = history.Op{Kind: history.Write, Key: y, Value: history.Value(i + 1)}
		}
		b.AddTxn(history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime},
			[]history.Op{{Kind: history.Read, Key: x, Value: history.Null}, op})
	}
	return b.History()
}

// TestAllPastCCClockLimit: with --level all, a level without a verdict of
// its own (CC, whose clocks would pass their memory) takes no other
// level's verdict with it: the table and the JSON show every level, CC's
// with its reason, and the status is 1 if a level is broken, else 3.
func TestAllPastCCClockLimit(t *testing.T) {
	for _, c := range []struct {
		name   string
		h      *history.History
		status int
		row    string // SI's row of the table
	}{
		{"lost update", twoWriters(true), exitViolated, "SI    violated   LostUpdate"},
		{"no anomaly", twoWriters(false), exitNoVerdict, "SI    satisfied"},
	} {
		for _, asJSON := range []bool{false, true} {
			// One 4-byte entry: no clock of two sessions fits.
			cf := &checkFlags{asJSON: asJSON, ablate: check.Options{MaxClockBytes: 4}, input: &inputFlags{limits: &limits{}}}
			var out, errs bytes.Buffer
			j := cf.input.limits.start(io.Discard)
			status := cf.runAll(j, c.h, nil, 0, false, false, nil, &out, &errs)
			if status != c.status || errs.Len() > 0 {
				t.Errorf("%s, json %v: exit %d, want %d; stderr %q", c.name, asJSON, status, c.status, errs.String())
			}
			if !asJSON {
				for _, want := range []string{c.row, "CC    no verdict resource limit: causal consistency's vector clocks", "RA    satisfied"} {
					if !strings.Contains(out.String(), want) {
						t.Errorf("%s: no %q in\n%s", c.name, want, out.String())
					}
				}
				continue
			}
			var got struct {
				Levels []struct {
					Level     string
					Satisfied *bool
					Reason    string
				}
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Levels) != 7 {
				t.Fatalf("%s: %v, %d levels in\n%s", c.name, err, len(got.Levels), out.String())
			}
			for _, l := range got.Levels {
				if noVerdict := l.Satisfied == nil; noVerdict != (l.Level == "CC") || noVerdict && !strings.Contains(l.Reason, "2 sessions") {
					t.Errorf("%s: level %s: satisfied %v, reason %q", c.name, l.Level, l.Satisfied, l.Reason)
				}
			}
		}
	}
}
