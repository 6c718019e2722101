package main

import (
	"fmt"
	"io"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/interpret"
)

// ednConflict says why the flags of check or explain cannot go with
// --edn, or returns "" when they can (or --edn is not given). --edn
// prints Elle's result map and nothing else on stdout: it needs --elle
// (without it there is no Elle map to print, and isocheck's own report
// has no EDN form), and excludes --json, --stats and writing a file to
// stdout.
func (cf *checkFlags) ednConflict() string {
	switch {
	case !cf.asEDN:
		return ""
	case !cf.elle:
		return "--edn prints Elle's result map: give --elle with it"
	case cf.asJSON:
		return "--edn and --json each print the whole output: give one"
	case cf.stats:
		return "--stats cannot go with --edn, whose output is Elle's result map alone (--json has the stats)"
	case cf.cexFile == "-" || cf.dotFile == "-" || cf.svgFile == "-" || cf.pngFile == "-" || cf.htmlFile == "-":
		return "with --edn, standard output holds Elle's result map: write the counterexample, the pictures and the page to files"
	}
	return ""
}

// writeElleEDN prints m on w as one line of EDN and returns status, the
// exit status of the verdict, or exitBadInput if m cannot be written.
func writeElleEDN(w, stderr io.Writer, status int, m *interpret.ElleMap) int {
	b, err := m.MarshalEDN()
	if err == nil {
		_, err = w.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitBadInput
	}
	return status
}

// writeStoppedEDN prints, for a run stopped before a verdict, the map
// that Jepsen's checkers return when they cannot decide,
// {:valid? :unknown, :error "REASON"}, and returns exitNoVerdict.
func writeStoppedEDN(w, stderr io.Writer, reason string) int {
	b, err := edn.Marshal(edn.Map{
		{Key: edn.Keyword("valid?"), Value: edn.Keyword("unknown")},
		{Key: edn.Keyword("error"), Value: reason},
	})
	if err == nil {
		_, err = w.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
	}
	return exitNoVerdict
}

// elleEvery returns Elle's result map of res, a check of h, with every
// anomaly the violation shows (interpret.ElleEvery); when the explanation
// is cut short first, the map of the check's evidence alone, which ex
// records. A violation that a weaker level's implies (res.Own set) is
// that level's evidence, with found, the anomalies its own level lists:
// not the level's own evidence, whose cycle may rest on orders of writes
// only its rules derive (a G0 at PC in a history RC allows).
func elleEvery(ex *explaining, h *history.History, res *check.Result, found []interpret.Found, sessionOrder bool) *interpret.ElleMap {
	if res.Own != nil && found != nil {
		return interpret.ElleFound(h, []*check.Result{res.Evidence()}, [][]interpret.Found{found}, sessionOrder)
	}
	results := []*check.Result{res}
	m, err := interpret.ElleEvery(ex.ctx, h, results, sessionOrder)
	if err != nil && ex.ctx.Err() != nil {
		ex.missing("Elle's result map holds the checker's evidence alone")
	}
	return m
}
