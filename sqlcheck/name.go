package sqlcheck

import (
	"slices"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/sqlhistory"
	"github.com/isocheck/isocheck/verdict"
)

// brokenLevel is the level whose axiom the edges break: the weakest level
// of a reader whose visibility constraint is among them, else the weakest
// level of the transactions, else fallback.
func brokenLevel(h *sqlhistory.History, edges []Edge, fallback level.Level) level.Level {
	var l level.Level
	weaker := func(m level.Level) {
		if l == 0 || l.Implies(m) {
			l = m
		}
	}
	for _, e := range edges {
		if e.Kind == verdict.Visible && e.Reader >= 0 {
			weaker(h.Txns[e.Reader].Level)
		}
	}
	if l != 0 {
		return l
	}
	for i := range h.Txns {
		weaker(h.Txns[i].Level)
	}
	if l == 0 {
		return fallback
	}
	return l
}

// cycleName names the violation of level l that edges (one cycle, or the
// cycles of a choice together) show, by their shape: G1c without a
// visibility constraint; with one, G-single, or what l calls a missed
// write it had to see; with two between two transactions, LostUpdate
// (one key, or both updated the same version of a row) or WriteSkew; G2
// with more. A name l does not forbid
// gives way to l's generic one (verdict.Generic).
func cycleName(h *sqlhistory.History, edges []Edge, l level.Level) verdict.Anomaly {
	var vis []Edge
	txns := map[int]bool{}
	for _, e := range edges {
		for _, t := range []int{e.From, e.To, e.Reader} {
			if t >= 0 {
				txns[t] = true
			}
		}
		if e.Kind == verdict.Visible {
			vis = append(vis, e)
		}
	}
	name := verdict.G2
	switch {
	case len(vis) == 0:
		name = verdict.G1c
	case len(vis) == 1:
		name = verdict.GSingle
		if !verdict.Forbids(l, name) {
			name = singleName(h, vis[0], l)
		}
	case len(vis) == 2 && len(txns) == 2 && vis[0].Reader != vis[1].Reader:
		name = verdict.WriteSkew
		if vis[0].Key == vis[1].Key || bothReplaced(h, vis[0].Reader, vis[1].Reader) {
			name = verdict.LostUpdate
		}
	}
	if !verdict.Forbids(l, name) {
		name = verdict.Generic(l)
	}
	return name
}

// bothReplaced reports whether transactions a and b both updated or
// deleted the same version of a row: whichever committed second overwrote
// an update it never saw.
func bothReplaced(h *sqlhistory.History, a, b int) bool {
	replaced := func(t int) map[sqlhistory.VersionID]bool {
		vs := map[sqlhistory.VersionID]bool{}
		for _, e := range h.Txns[t].Events {
			if e.Kind == sqlhistory.Update || e.Kind == sqlhistory.Delete {
				for _, v := range e.Reads {
					vs[v] = true
				}
			}
		}
		return vs
	}
	ra := replaced(a)
	for v := range replaced(b) {
		if ra[v] {
			return true
		}
	}
	return false
}

// singleName names a read that missed one write it had to see under a
// level weaker than SI: at RA, a second read of a key that returned
// another version than the first (NonRepeatableRead), or a missed write
// of the reader's own session (SessionGuaranteeViolation).
func singleName(h *sqlhistory.History, e Edge, l level.Level) verdict.Anomaly {
	if l != level.RA {
		return verdict.Generic(l)
	}
	if e.From >= 0 && e.Reader >= 0 && slices.Contains(readsFrom(h, e.Reader, e.From), e.Key) {
		return verdict.NonRepeatableRead
	}
	if e.From >= 0 && e.Reader >= 0 && h.Txns[e.From].Session == h.Txns[e.Reader].Session {
		return verdict.SessionGuaranteeViolation
	}
	return verdict.FracturedRead
}

// readsFrom returns the keys of the rows transaction reader read from
// writer's versions, in the order it read them.
func readsFrom(h *sqlhistory.History, reader, writer int) []sqlhistory.KeyID {
	var keys []sqlhistory.KeyID
	for _, e := range h.Txns[reader].Events {
		for _, v := range e.Reads {
			if h.Versions[v].Writer == writer {
				keys = append(keys, h.Versions[v].Key)
			}
		}
	}
	return keys
}
