package sqlcheck

import (
	"fmt"

	"github.com/isocheck/isocheck/sqlhistory"
)

// validate returns a *sqlhistory.InputError when h is not a history the
// checker can take: one whose transactions, sessions and versions refer
// to each other as sqlhistory.Builder makes them, at the levels of a SQL
// history. A history the Builder built always is.
func validate(h *sqlhistory.History) error {
	if h == nil {
		return &sqlhistory.InputError{Msg: "sqlcheck: no history"}
	}
	fail := func(line int, format string, args ...any) error {
		return &sqlhistory.InputError{File: h.File, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	nv := sqlhistory.VersionID(len(h.Versions))
	for i := range h.Txns {
		t := &h.Txns[i]
		switch {
		case !sqlhistory.ValidLevel(t.Level):
			return fail(t.Line, "transaction %s has level %v, not one of a SQL history's (%v)", h.TxnName(i), t.Level, sqlhistory.Levels())
		case t.Status > sqlhistory.RolledBack:
			return fail(t.Line, "transaction %s has status %v, not one of a SQL history's", h.TxnName(i), t.Status)
		case t.Session < 0 || t.Session >= len(h.Sessions):
			return fail(t.Line, "transaction %s is in session %d, not one of the history's %d", h.TxnName(i), t.Session, len(h.Sessions))
		}
		for _, e := range t.Events {
			for _, vs := range [][]sqlhistory.VersionID{e.Reads, e.Writes} {
				for _, v := range vs {
					if v < 0 || v >= nv {
						return fail(t.Line, "transaction %s names version %d, not one of the history's %d", h.TxnName(i), v, nv)
					}
				}
			}
		}
	}
	for s, sess := range h.Sessions {
		for _, t := range sess {
			if t < 0 || t >= len(h.Txns) || h.Txns[t].Session != s {
				return fail(0, "session %s lists transaction %d, not one of its own", h.SessionName(s), t)
			}
		}
	}
	for v := range h.Versions {
		ver := &h.Versions[v]
		if ver.Key < 0 || int(ver.Key) >= len(h.Keys) || ver.Writer < sqlhistory.Unwritten || ver.Writer >= len(h.Txns) {
			return fail(0, "version %q has key %d and writer %d: not a key and a transaction of the history", ver.Name, ver.Key, ver.Writer)
		}
	}
	for k, v := range h.Initial {
		if k < 0 || int(k) >= len(h.Keys) || v < 0 || v >= nv {
			return fail(0, "initial version %d of key %d: not a version and a key of the history", v, k)
		}
	}
	return nil
}
