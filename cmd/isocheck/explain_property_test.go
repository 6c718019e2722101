package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// explanationRuns is the number of random histories of
// TestExplanationsTrue: 4,000 under make test-long.
var explanationRuns = testsize.N(400, 4000)

// explained is the part of a report's JSON (check --json, explain --json,
// and each level of --level all --json) that an explanation's truth
// rests on.
type explained struct {
	Level     string `json:"level"`
	Satisfied *bool  `json:"satisfied"`
	ImpliedBy string `json:"implied_by"`
	Anomaly   *struct {
		Name    verdict.Anomaly `json:"name"`
		Minimal bool            `json:"minimal"`
		Txns    []struct {
			Index int `json:"index"`
		} `json:"transactions"`
	} `json:"anomaly"`
	Anomalies []foundJSON `json:"anomalies"`
}

// foundJSON is one anomaly of a report's list of every anomaly found.
type foundJSON struct {
	Name         verdict.Anomaly `json:"name"`
	WeakestLevel string          `json:"weakest_level"`
	Example      []struct {
		Index int `json:"index"`
	} `json:"example"`
}

// TestExplanationsTrue runs check and explain, at every level and with
// --level all, on random histories (sessions, real time, aborted and
// unknown transactions, intermediate and other faulty reads, and values
// that repeat), and holds every explanation to what a developer relies
// on, by the brute-force reference checker:
//
//   - the verdict is the reference's;
//   - the anomaly named is one the level forbids and no weaker level the
//     history keeps forbids;
//   - the transactions listed, as a sub-history (a read whose writers
//     are all left out is dropped: docs/checking.md, "Minimal
//     counterexamples"), violate the level;
//   - when called minimal, without any one of them the rest satisfies
//     the level;
//   - with --level all, every anomaly listed has an example that
//     violates the weakest level that forbids it, and the anomaly of
//     every level broken on its own is among them; Elle's map is valid
//     exactly when every level is kept, and names anomaly types when not;
//   - the text's first line, and the page's table of levels, name what
//     the JSON names.
func TestExplanationsTrue(t *testing.T) {
	runs := explanationRuns
	if testing.Short() {
		runs /= 5
	}
	cfg := histgen.SmallConfig{Sessions: 3, MaxTxns: 7, Keys: 3, MaxOps: 4, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true}
	dir := t.TempDir()
	reports, names := 0, map[string]int{}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x35))
		h := histgen.Small(rng, cfg)
		if seed%3 == 2 {
			h = histgen.Repeat(h, histgen.RepeatConfig{Fraction: 1, Writers: 2, Seed: uint64(seed)})
		}
		path := filepath.Join(dir, fmt.Sprintf("h%d.jsonl", seed))
		var b bytes.Buffer
		if err := format.Write(&b, h, format.JSONL); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		// The history as isocheck reads it: the indices of the reports
		// are its transactions'.
		h, err := format.ReadFile(path, format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		v := &verifier{t: t, h: h, subj: shrink.NewSubject(h), kept: map[level.Level]bool{}, file: b.String()}
		for _, l := range level.All() {
			ok, err := reference.Check(h, l)
			if err != nil {
				t.Fatalf("seed %d: reference at %v: %v", seed, l, err)
			}
			v.kept[l] = ok
		}
		for _, l := range level.All() {
			for _, cmd := range []string{"check", "explain"} {
				_, out, stderr := runCmd(cmd, "--allow-empty", "--level", l.String(), "--json", path)
				var rep explained
				if err := json.Unmarshal([]byte(out), &rep); err != nil {
					t.Fatalf("seed %d: %s --level %v --json: %v\n%s%s", seed, cmd, l, err, out, stderr)
				}
				where := fmt.Sprintf("seed %d, %s --level %v", seed, cmd, l)
				if v.report(where, l, &rep) {
					reports++
					names[rep.Anomaly.Name.String()]++
				}
			}
			_, out, _ := runCmd("check", "--allow-empty", "--level", l.String(), path)
			if !v.kept[l] {
				var rep explained
				_, js, _ := runCmd("check", "--allow-empty", "--level", l.String(), "--json", path)
				_ = json.Unmarshal([]byte(js), &rep)
				first, _, _ := strings.Cut(out, "\n")
				if want := fmt.Sprintf("%v: VIOLATED: %s", l, rep.Anomaly.Name); !strings.HasPrefix(first, want) {
					t.Errorf("seed %d, check --level %v: the text says %q, the JSON %s", seed, l, first, rep.Anomaly.Name)
				}
				if seed%10 == 0 {
					// The page (its levels table) names what the JSON names.
					page := filepath.Join(dir, "page.html")
					runCmd("check", "--allow-empty", "--level", l.String(), "--html", page, path)
					html, err := os.ReadFile(page)
					if err != nil {
						t.Fatal(err)
					}
					row := fmt.Sprintf(`<td class="level">%v</td><td class="word">violated</td><td class="why" data-label="anomaly or reason"><a href="#anomaly-1">%s</a>`, l, rep.Anomaly.Name)
					if !strings.Contains(string(html), row) {
						t.Errorf("seed %d, check --level %v --html: the page's levels table does not name %s", seed, l, rep.Anomaly.Name)
					}
				}
			}
		}
		v.all(fmt.Sprintf("seed %d, check --level all", seed), path)
	}
	if reports < runs {
		t.Errorf("only %d violations explained in %d histories", reports, runs)
	}
	t.Logf("%d explanations of violations checked; names: %v", reports, names)
}

// verifier holds one history and what the reference says of it.
type verifier struct {
	t    *testing.T
	h    *history.History
	subj *shrink.Subject
	kept map[level.Level]bool
	file string
}

func (v *verifier) fail(where, format string, args ...any) {
	v.t.Helper()
	v.t.Fatalf("%s: %s\nhistory:\n%s", where, fmt.Sprintf(format, args...), v.file)
}

// violates reports whether the sub-history of txns violates l, by the
// reference.
func (v *verifier) violates(txns []int32, l level.Level) bool {
	slices.Sort(txns)
	ok, err := reference.Check(v.subj.Sub(shrink.Selection{Txns: txns}), l)
	if err != nil {
		v.t.Fatalf("reference on %v at %v: %v", txns, l, err)
	}
	return !ok
}

// report checks one report at l, and says whether it explained a
// violation.
func (v *verifier) report(where string, l level.Level, rep *explained) bool {
	v.t.Helper()
	switch {
	case rep.Satisfied == nil:
		v.fail(where, "no verdict")
	case *rep.Satisfied != v.kept[l]:
		v.fail(where, "satisfied %v, the reference says %v", *rep.Satisfied, v.kept[l])
	case *rep.Satisfied:
		return false
	case rep.Anomaly == nil:
		v.fail(where, "violated without an anomaly")
	}
	name := rep.Anomaly.Name
	if !verdict.Forbids(l, name) {
		v.fail(where, "%v allows %s, the anomaly named", l, name)
	}
	for _, w := range level.All() {
		if w != l && l.Implies(w) && v.kept[w] && verdict.Forbids(w, name) {
			v.fail(where, "%s, the anomaly named, is forbidden at %v, which the history keeps", name, w)
		}
	}
	var txns []int32
	for _, x := range rep.Anomaly.Txns {
		txns = append(txns, int32(x.Index))
	}
	if !v.violates(slices.Clone(txns), l) {
		v.fail(where, "the transactions listed, %v, do not violate %v by themselves", txns, l)
	}
	if rep.Anomaly.Minimal {
		for i := range txns {
			rest := slices.Delete(slices.Clone(txns), i, i+1)
			if v.violates(rest, l) {
				v.fail(where, "called minimal, but without transaction %d the rest still violates %v", txns[i], l)
			}
		}
	}
	return true
}

// all checks check --level all --json: each level as report does, and
// its list of every anomaly.
func (v *verifier) all(where, path string) {
	v.t.Helper()
	_, out, stderr := runCmd("check", "--allow-empty", "--level", "all", "--json", path)
	var all struct {
		Levels    []explained `json:"levels"`
		Anomalies []foundJSON `json:"anomalies"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		v.fail(where, "%v\n%s%s", err, out, stderr)
	}
	listed := map[verdict.Anomaly]bool{}
	for _, f := range all.Anomalies {
		listed[f.Name] = true
		w := f.Name.Weakest()
		if w == 0 || f.WeakestLevel != w.String() {
			v.fail(where, "%s is listed as forbidden from %q, the vocabulary says %v", f.Name, f.WeakestLevel, w)
		}
		var txns []int32
		for _, x := range f.Example {
			txns = append(txns, int32(x.Index))
		}
		if !v.violates(txns, w) {
			v.fail(where, "the example of %s, %v, does not violate %v", f.Name, txns, w)
		}
	}
	broken := false
	for _, l := range level.All() {
		broken = broken || !v.kept[l]
	}
	_, out, _ = runCmd("check", "--allow-empty", "--level", "all", "--elle", "--json", path)
	var elle struct {
		Elle struct {
			Valid        any      `json:"valid?"`
			AnomalyTypes []string `json:"anomaly-types"`
		} `json:"elle"`
	}
	if err := json.Unmarshal([]byte(out), &elle); err != nil {
		v.fail(where, "--elle --json: %v\n%s", err, out)
	}
	if elle.Elle.Valid != !broken || broken && len(elle.Elle.AnomalyTypes) == 0 {
		v.fail(where, "Elle's map says valid? %v with anomaly types %v; the reference breaks some level: %v", elle.Elle.Valid, elle.Elle.AnomalyTypes, broken)
	}
	for _, rep := range all.Levels {
		l, err := level.Parse(rep.Level)
		if err != nil {
			v.fail(where, "level %q: %v", rep.Level, err)
		}
		if !v.report(fmt.Sprintf("%s, level %v", where, l), l, &rep) {
			continue
		}
		if rep.ImpliedBy == "" && !listed[rep.Anomaly.Name] {
			v.fail(where, "%v's anomaly %s is not among every anomaly listed", l, rep.Anomaly.Name)
		}
	}
}

// TestNamedByWeakestBroken: a history that keeps RC and breaks RA, whose
// writes PC's rule orders into a write cycle, is explained at PC as RA's
// fractured read, in the text, the JSON, Elle's map and the page; not as
// a G0 that RC, which the history keeps, forbids.
func TestNamedByWeakestBroken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(path, []byte(`{"session":1,"id":"t0","ops":[["w","x",1],["w","y",1]]}
{"session":2,"id":"t1","ops":[["w","x",2],["w","y",2]]}
{"session":3,"id":"t2","ops":[["r","x",1],["r","y",2]]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCmd("check", "--level", "pc", path)
	want := "PC: VIOLATED: FracturedRead (G-single)\n  as RA: the history breaks RA, a weaker level, already; what follows is that violation, which breaks PC too\n"
	if code != exitViolated || !strings.HasPrefix(out, want) || strings.Contains(out, "G0") {
		t.Errorf("exit %d, text:\n%s%s\nwant it to begin:\n%s", code, out, stderr, want)
	}
	_, out, _ = runCmd("explain", "--level", "pc", "--json", path)
	var rep explained
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ImpliedBy != "RA" || rep.Anomaly == nil || rep.Anomaly.Name != verdict.FracturedRead {
		t.Errorf("JSON: implied by %q, anomaly %+v; want FracturedRead as RA", rep.ImpliedBy, rep.Anomaly)
	}
	_, out, _ = runCmd("check", "--level", "pc", "--elle", "--edn", path)
	if !strings.Contains(out, ":anomaly-types [:G-single]") || !strings.Contains(out, ":not #{:read-atomic}") {
		t.Errorf("Elle's map, want the fractured read's G-single ruling out read-atomic, not a G0:\n%s", out)
	}
	page := filepath.Join(dir, "h.html")
	runCmd("check", "--level", "pc", "--html", page, path)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "FracturedRead</a> · as RA, the weakest level the history breaks") {
		t.Errorf("the page's table of levels does not say FracturedRead as RA")
	}
}
