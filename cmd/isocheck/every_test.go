package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/internal/testkit/reference"
	"github.com/isocheck/isocheck/internal/testkit/testsize"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/shrink"
	"github.com/isocheck/isocheck/verdict"
)

// threeAnomalies is a Jepsen list-append history with an aborted read
// (RC broken), a lost update (SI) and a write skew (SER).
const threeAnomalies = "testdata/every/three-anomalies.edn"

// allJSON is what a test reads of `--level all --json`.
type allJSON struct {
	Levels []struct {
		Level     string             `json:"level"`
		Satisfied *bool              `json:"satisfied"`
		ImpliedBy string             `json:"implied_by"`
		Anomaly   *interpret.Anomaly `json:"anomaly"`
		Anomalies []interpret.Found  `json:"anomalies"`
	} `json:"levels"`
	Anomalies []interpret.Found `json:"anomalies"`
}

// foundNames returns the names of found, in order.
func foundNames(found []interpret.Found) []verdict.Anomaly {
	var out []verdict.Anomaly
	for _, f := range found {
		out = append(out, f.Name)
	}
	return out
}

// TestEveryLevelOutputs checks that --level all lists every anomaly of
// a history that shows three, each at the weakest level that forbids it,
// in every output: the text (a golden file), the JSON (the list and each
// broken level's own), Elle's map and the page.
func TestEveryLevelOutputs(t *testing.T) {
	want := []verdict.Anomaly{verdict.AbortedRead, verdict.LostUpdate, verdict.WriteSkew}

	t.Run("text", func(t *testing.T) {
		code, out, errs := runCmd("check", "--level", "all", threeAnomalies)
		if code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s", code, exitViolated, errs)
		}
		golden(t, "testdata/every/three-anomalies.all.txt", out)
	})

	t.Run("json", func(t *testing.T) {
		code, out, errs := runCmd("check", "--level", "all", "--json", threeAnomalies)
		if code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s", code, exitViolated, errs)
		}
		var got allJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if n := foundNames(got.Anomalies); !slices.Equal(n, want) {
			t.Errorf("anomalies %v, want %v", n, want)
		}
		for _, f := range got.Anomalies {
			if w := f.Name.Weakest().String(); f.Weakest != w || f.Count != 1 || len(f.Example) == 0 {
				t.Errorf("%s: weakest level %q, count %d, example %v; want %s, 1, an example", f.Name, f.Weakest, f.Count, f.Example, w)
			}
		}
		// Each level lists what it forbids.
		levels := map[string][]verdict.Anomaly{
			"SSER": want, "SER": want, "SI": want[:2],
			"PC": want[:1], "CC": want[:1], "RA": want[:1], "RC": want[:1],
		}
		for _, l := range got.Levels {
			if n := foundNames(l.Anomalies); !slices.Equal(n, levels[l.Level]) {
				t.Errorf("%s lists %v, want %v", l.Level, n, levels[l.Level])
			}
		}
	})

	t.Run("elle", func(t *testing.T) {
		code, out, errs := runCmd("check", "--level", "all", "--elle", "--edn", threeAnomalies)
		if code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s", code, exitViolated, errs)
		}
		if !strings.Contains(out, ":anomaly-types [:G1a :G2-item :lost-update]") {
			t.Errorf("Elle's map lacks an anomaly type:\n%s", out)
		}
		golden(t, "testdata/every/three-anomalies.all.edn", out)
	})

	t.Run("page", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "page.html")
		if code, _, errs := runCmd("check", "--level", "all", "--html", path, threeAnomalies); code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s", code, exitViolated, errs)
		}
		items := foundItems(t, path)
		if len(items) != len(want) {
			t.Fatalf("the page lists %q, want %v", items, want)
		}
		for i, name := range want {
			from := "from " + name.Weakest().String() + " up"
			if !strings.HasPrefix(items[i], name.String()) || !strings.Contains(items[i], from) {
				t.Errorf("the page's item %d is %q, want %s, %s", i, items[i], name, from)
			}
		}
		// Each has its section, drawn at the weakest level that
		// forbids it, and the list links to it.
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range want {
			section := fmt.Sprintf(`<section class="anomaly" id="anomaly-%d" data-name="%s">`, i+1, name)
			heading := fmt.Sprintf(`<span class="anomaly-level">%v</span> violated: <span class="anomaly-name">%s</span>`, name.Weakest(), name)
			link := fmt.Sprintf(`<a href="#anomaly-%d">%s</a>`, i+1, name)
			for _, s := range []string{section, heading, link} {
				if !strings.Contains(string(page), s) {
					t.Errorf("the page lacks %s", s)
				}
			}
		}
	})
}

// golden compares got with the file at path, which -update rewrites.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// foundItems returns the text of the items of the page's list of every
// anomaly found.
func foundItems(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode {
			if n.Data == "ul" && hasClass(attr(n, "class"), "found") {
				in = true
			}
			if in && n.Data == "li" {
				items = append(items, strings.Join(strings.Fields(textOf(n)), " "))
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(doc, false)
	return items
}

// TestAnomaliesFile checks --anomalies: a header, then one line per
// anomaly counted, for one level and for every level.
func TestAnomaliesFile(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		levels []string
		want   []string // level/name pairs the file must hold
	}{
		{[]string{"check", "--level", "ser"}, []string{"SER"}, []string{"SER/AbortedRead", "SER/LostUpdate", "SER/WriteSkew"}},
		{[]string{"explain", "--level", "all"}, []string{"SSER", "SER", "SI", "PC", "CC", "RA", "RC"}, []string{"RC/AbortedRead", "SI/LostUpdate", "SER/WriteSkew", "SSER/WriteSkew"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "anomalies.jsonl")
			args := append(slices.Clone(tc.args), "--anomalies", path, threeAnomalies)
			if code, _, errs := runCmd(args...); code != exitViolated {
				t.Fatalf("exit %d, want %d\n%s", code, exitViolated, errs)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			if !sc.Scan() {
				t.Fatal("the file is empty")
			}
			var hdr anomaliesHeader
			if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil || !slices.Equal(hdr.Levels, tc.levels) || hdr.MaxPerName != interpret.MaxCount {
				t.Fatalf("header %s (%v), want levels %v and max_per_name %d", sc.Bytes(), err, tc.levels, interpret.MaxCount)
			}
			count := map[string]int{}
			for sc.Scan() {
				var in interpret.Instance
				if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
					t.Fatalf("%s: %v", sc.Bytes(), err)
				}
				if len(in.Txns) == 0 || !slices.Contains(tc.levels, in.Level) {
					t.Errorf("line %s: no transactions, or a level not checked", sc.Bytes())
				}
				count[in.Level+"/"+in.Name.String()]++
			}
			for _, w := range tc.want {
				if count[w] != 1 {
					t.Errorf("%s: %d lines, want 1 (all: %v)", w, count[w], count)
				}
			}
		})
	}
}

// TestEveryLevelTrue checks --level all on random histories against the
// brute-force reference checker: every anomaly listed, at the top and
// in each broken level's list, has an example that violates the weakest
// level that forbids it; each broken level's counterexample, its own or
// a weaker level's (implied_by), violates it; and the anomaly that
// broke each level is in its list and in the list of every anomaly.
func TestEveryLevelTrue(t *testing.T) {
	runs := testsize.N(40, 300)
	// Registers and lists (Elle's list-append, whose reads order the
	// writes: cycles at every level).
	configs := []histgen.SmallConfig{
		{Sessions: 3, MaxTxns: 6, Keys: 3, MaxOps: 3, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true},
		{Sessions: 3, MaxTxns: 6, Keys: 3, MaxOps: 3, AbortProb: 0.1, UnknownProb: 0.1, FaultProb: 0.15, Times: true, Lists: true},
	}
	dir := t.TempDir()
	violated, listed, misnamed := 0, 0, 0
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xe7e7))
		path := filepath.Join(dir, "h.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := format.Write(f, histgen.Small(rng, configs[seed%len(configs)]), format.JSONL); err != nil {
			t.Fatal(err)
		}
		f.Close()
		h, err := format.ReadFile(path, format.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd("check", "--level", "all", "--json", "--allow-empty", path)
		if code != exitViolated {
			continue
		}
		violated++
		var got allJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, errs)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d: "+format+"\nhistory:\n%s\noutput:\n%s", append([]any{seed}, append(args, histgen.Describe(h), out)...)...)
		}
		violates := func(txns []int, l level.Level) bool {
			var sel []int32
			for _, x := range txns {
				sel = append(sel, int32(x))
			}
			slices.Sort(sel)
			ok, err := reference.Check(shrink.NewSubject(h).Sub(shrink.Selection{Txns: slices.Compact(sel)}), l)
			return err == nil && !ok
		}
		checkList := func(where string, found []interpret.Found) {
			for _, f := range found {
				w := f.Name.Weakest()
				var txns []int
				for _, x := range f.Example {
					txns = append(txns, x.Index)
				}
				listed++
				if w == 0 || len(txns) == 0 || !violates(txns, w) {
					fail("%s lists %s, whose example %v does not violate %v, its weakest level", where, f.Name, txns, w)
				}
			}
		}
		checkList("the list of every anomaly", got.Anomalies)
		for _, l := range got.Levels {
			if l.Satisfied == nil || *l.Satisfied || l.Anomaly == nil {
				continue
			}
			lvl, err := level.Parse(l.Level)
			if err != nil {
				t.Fatal(err)
			}
			var txns []int
			for _, x := range l.Anomaly.Txns {
				txns = append(txns, x.Index)
			}
			if !violates(txns, lvl) {
				fail("%s (implied by %q): its counterexample %v does not violate it", l.Level, l.ImpliedBy, txns)
			}
			checkList(l.Level, l.Anomalies)
			main := l.Anomaly.Name
			if !verdict.Forbids(lvl, main) {
				main = verdict.Generic(lvl)
			}
			if !violates(txns, main.Weakest()) {
				// The report names an anomaly that a weaker level
				// forbids, which its counterexample does not violate:
				// the list gives it the name of a stronger level.
				misnamed++
				if len(l.Anomalies) == 0 || main.Weakest().Implies(l.Anomalies[0].Name.Weakest()) {
					fail("%s broken by %s, whose counterexample does not violate %v, lists %v first", l.Level, main, main.Weakest(), foundNames(l.Anomalies))
				}
				continue
			}
			if !slices.Contains(foundNames(l.Anomalies), main) || !slices.Contains(foundNames(got.Anomalies), main) {
				fail("%s broken by %s, which its list %v or the list of every anomaly %v lacks", l.Level, main, foundNames(l.Anomalies), foundNames(got.Anomalies))
			}
		}
	}
	if violated < runs/4 || listed < violated {
		t.Errorf("%d of %d histories violated, with %d anomalies listed: too few to test", violated, runs, listed)
	}
	t.Logf("%d of %d histories violated, %d anomalies listed; %d broken levels' anomalies named after a weaker level that holds", violated, runs, listed, misnamed)
}
