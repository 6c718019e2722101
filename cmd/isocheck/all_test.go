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

// longFork is a history of two writers of x and y and two readers that
// saw their writes in opposite orders: PC broken, CC kept.
func longFork() *history.History {
	b := history.NewBuilder(history.Null)
	x, y := b.Key("x"), b.Key("y")
	none := func(s string) history.Txn {
		return history.Txn{Session: b.Session(s), Start: history.NoTime, End: history.NoTime}
	}
	b.AddTxn(none("wx"), []history.Op{{Kind: history.Write, Key: x, Value: 1}})
	b.AddTxn(none("wy"), []history.Op{{Kind: history.Write, Key: y, Value: 1}})
	b.AddTxn(none("r1"), []history.Op{{Kind: history.Read, Key: x, Value: 1}, {Kind: history.Read, Key: y, Value: history.Null}})
	b.AddTxn(none("r2"), []history.Op{{Kind: history.Read, Key: y, Value: 1}, {Kind: history.Read, Key: x, Value: history.Null}})
	return b.History()
}

// TestAllPastCCClockLimit: with --level all, a level without a verdict of
// its own (CC, whose clocks would pass their memory) takes no other
// level's verdict with it: the table and the JSON show every level, and
// the status is 1 if a level is broken. CC is kept when PC is (the
// table says so, with CC's own reason); else it stays undecided, and
// the summary says so rather than claim it kept or that no weaker level
// is broken.
func TestAllPastCCClockLimit(t *testing.T) {
	const ccLimit = "its own check: resource limit: causal consistency's vector clocks"
	for _, c := range []struct {
		name    string
		h       *history.History
		status  int
		rows    []string
		keptBy  string // CC's kept_by in JSON; "" for no verdict
		summary string
	}{
		{"lost update", twoWriters(true), exitViolated, []string{"SI    violated   LostUpdate", "CC    satisfied  as PC is kept (" + ccLimit}, "PC",
			"strongest level kept: PC; weakest level broken: SI\n"},
		{"no anomaly", twoWriters(false), exitSatisfied, []string{"SI    satisfied", "CC    satisfied  as PC is kept (" + ccLimit}, "PC",
			"strongest level kept: SSER; weakest level broken: none\n"},
		{"long fork", longFork(), exitViolated, []string{"PC    violated   LongFork", "CC    no verdict resource limit: causal consistency's vector clocks"}, "",
			"strongest level kept: RA; weakest level broken: PC; not decided: CC\n"},
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
				for _, want := range append(c.rows, "RA    satisfied", c.summary) {
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
					KeptBy    string `json:"kept_by"`
				}
				Undecided []string
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Levels) != 7 {
				t.Fatalf("%s: %v, %d levels in\n%s", c.name, err, len(got.Levels), out.String())
			}
			for _, l := range got.Levels {
				undecided := l.Level == "CC" && c.keptBy == ""
				if noVerdict := l.Satisfied == nil; noVerdict != undecided || noVerdict && !strings.Contains(l.Reason, "sessions") {
					t.Errorf("%s: level %s: satisfied %v, reason %q", c.name, l.Level, l.Satisfied, l.Reason)
				}
				if l.Level == "CC" && l.KeptBy != c.keptBy {
					t.Errorf("%s: CC kept by %q, want %q", c.name, l.KeptBy, c.keptBy)
				}
			}
			if wantUndecided := c.keptBy == ""; wantUndecided != (len(got.Undecided) == 1 && got.Undecided[0] == "CC") {
				t.Errorf("%s: undecided %v", c.name, got.Undecided)
			}
		}
	}
}
