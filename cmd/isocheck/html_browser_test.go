package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/internal/testkit/browser"
	"github.com/isocheck/isocheck/internal/testkit/corpus"
)

// browserCorpusSample are the corpus's violations whose pages
// TestHTMLInBrowser opens, with the anomaly each shows first: a spread of
// formats (dbcop, PolySI text) and anomalies, small enough to take well
// under a minute.
var browserCorpusSample = []string{
	"polysi/dgraph.bincode", // SessionGuaranteeViolation at CC
	"polysi/galera.txt",     // LostUpdate
	"polysi/yugabyte.txt",   // SessionGuaranteeViolation at RA
	"dbcop-oopsla19/antidote_all_writes/12_30_20_720__hist-00000.bincode",              // LongFork
	"dbcop-oopsla19/galera_all_writes/12_30_20_720__hist-00000.bincode",                // FracturedRead, NonMonotonicRead
	"dbcop-oopsla19/galera_all_writes/12_30_20_720__hist-00008.bincode",                // NonRepeatableRead
	"dbcop-oopsla19/galera_all_writes/15_30_20_900__hist-00016.bincode",                // NotMyOwnWrite
	"dbcop-oopsla19/galera_partition_writes/15_30_20_900__hist-00041.bincode",          // WriteSkew
	"dbcop-oopsla19/galera_partition_writes/12_30_20_720__hist-00041.bincode",          // FracturedRead at RA
	"dbcop-oopsla19/roachdb_general_partition_writes/12_30_20_720__hist-00000.bincode", // CausalityViolation
	"dbcop-oopsla19/roachdb_partition_writes/12_30_20_720__hist-00001.bincode",         // SessionGuaranteeViolation
	"dbcop-oopsla19/roachdb_general_all_writes/6_60_20_360__hist-00030.bincode",        // FracturedRead
}

// pageSelectors are the elements of a report page TestHTMLInBrowser
// measures.
var pageSelectors = []string{
	".verdict", "table.levels",
	"section.anomaly", ".anomaly-name", "table.txns tr.txn", "table.edges tr.edge",
	"svg", "text.title", "g.node", "text.edge-label", "g.op", "svg text",
	"g.edge", "g.edge g.head", "g.node g.line", "table td.reason", "thead th",
}

// The screenshots ($ISOCHECK_SCREENSHOTS) are of the first screen a
// reader sees, shotHeight pixels high, as JPEGs of quality shotQuality:
// docs/screenshots holds them, and a whole page as PNG would be ten times
// the size.
const (
	shotHeight  = 1200
	shotQuality = 60
)

// minTextSize is the smallest size, in CSS pixels, a picture's text may
// be drawn at, at any width of the page.
const minTextSize = 11

// narrowWidth is the width, in CSS pixels, of a phone held upright: the
// page must fit it without scrolling sideways.
const narrowWidth = 420

// htmlCase is one page to look at: the command that writes it, less
// --html, and whether it must be a violation.
type htmlCase struct {
	name string
	args []string
	// mustViolate says the input was chosen as a violation; a shipped
	// example that is not one is left out instead.
	mustViolate bool
	// wideOnly leaves out the look at a phone's width.
	wideOnly bool
}

// TestHTMLInBrowser writes the HTML page (--html) of every shipped
// example that is a violation and of a sample of the corpus's violations,
// opens it in headless Chromium as a reader would, and checks what the
// reader sees: the page loads nothing and logs no error; the anomaly's
// name, the counterexample's transactions (in the table and as boxes in
// the picture) and the dependencies' labels are all visible; no two boxes
// or labels of a picture overlap, and all lie inside it; and on a narrow
// screen only the wide pictures and tables scroll sideways, not the page.
// With $ISOCHECK_SCREENSHOTS set, the screenshots are saved there.
func TestHTMLInBrowser(t *testing.T) {
	chromium, ok := browser.Find()
	if !ok {
		browserUnavailable(t, browser.ErrNoChromium)
	}
	shots := os.Getenv("ISOCHECK_SCREENSHOTS")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range append(exampleCases(t), commandCases(t)...) {
		t.Run(c.name, func(t *testing.T) {
			checkPageInBrowser(t, c, chromium, shots)
		})
	}
	t.Run("corpus", func(t *testing.T) {
		for _, c := range corpusCases(t) {
			t.Run(c.name, func(t *testing.T) {
				checkPageInBrowser(t, c, chromium, shots)
			})
		}
	})
}

// exampleCases are the shipped examples, checked as a user first would.
func exampleCases(t *testing.T) []htmlCase {
	examples, err := filepath.Glob("../../examples/*")
	if err != nil {
		t.Fatal(err)
	}
	var cases []htmlCase
	for _, path := range examples {
		base := filepath.Base(path)
		c := htmlCase{name: base}
		switch {
		case strings.HasPrefix(base, "cas-"):
			c.args = []string{"lwt", path}
		case strings.HasPrefix(base, "sql-"):
			// Each transaction at its own level, as recorded.
			c.args = []string{"explain", path}
		default:
			c.args = []string{"explain", "--level", "all", path}
		}
		cases = append(cases, c)
	}
	return cases
}

// commandCases are the pages of the other commands a user reads them
// from: a run of the list-append workload and one of registers, on a
// simulated database that loses updates (when one is lost); an
// exploration of an application; and a violation in a generated history
// of 2,000 transactions (200,000 for the screenshots).
func commandCases(t *testing.T) []htmlCase {
	dir := t.TempDir()
	generated := filepath.Join(dir, "generated.jsonl")
	name, sessions, txns := "generated", "20", "100"
	if os.Getenv("ISOCHECK_SCREENSHOTS") != "" {
		// The screenshots show the page of a large violation: 200,000
		// transactions (seconds to generate and check).
		name, sessions, txns = "generated-200k", "100", "2000"
	}
	if code, _, stderr := runCmd("generate", "--store", "si-no-fcw", "--sessions", sessions, "--txns", txns, generated); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	return []htmlCase{
		// Whether a lost update happens depends on how the sessions'
		// transactions overlap, which a loaded machine may serialize:
		// the page of a run that kept its level is not what is tested.
		{name: "run-append", args: []string{"run", "--db", "sim://si?fault=lost-update", "--workload", "append", "--sessions", "6", "--txns", "60", "--check", "ser", "-o", filepath.Join(dir, "append.jsonl")}},
		{name: "run-lwt", args: []string{"run", "--db", "sim://si?fault=lost-update", "--workload", "lwt", "--sessions", "6", "--txns", "60", "--check", "lwt", "-o", filepath.Join(dir, "lwt.jsonl")}},
		{name: "explore", args: []string{"explore", "--app", "shopping-cart", "--level", "cc"}, mustViolate: true},
		{name: name, args: []string{"explain", "--level", "all", generated}, mustViolate: true},
	}
}

// corpusCases are the corpus sample (in -short, only its first two),
// checked at every level; with ISOCHECK_BROWSER_ALL=1 (CI), every history
// of the corpus that violates SI too, checked at SI, at a desktop's width
// only.
func corpusCases(t *testing.T) []htmlCase {
	sample := browserCorpusSample
	if testing.Short() {
		sample = sample[:2]
	}
	dir := corpus.Dir(t)
	var cases []htmlCase
	if os.Getenv("ISOCHECK_BROWSER_ALL") == "1" && !testing.Short() {
		for _, sub := range []string{"dbcop-oopsla19", "polysi"} {
			for _, e := range corpus.Expected(t, filepath.Join(dir, sub)) {
				if e.Verdict != "REJECT" {
					continue
				}
				rel, _ := filepath.Rel(dir, e.Path)
				cases = append(cases, htmlCase{name: "si/" + rel, args: []string{"explain", "--level", "si", e.Path}, mustViolate: true, wideOnly: true})
			}
		}
	}
	for _, rel := range sample {
		cases = append(cases, htmlCase{
			name:        rel,
			args:        []string{"explain", "--level", "all", filepath.Join(dir, rel)},
			mustViolate: true,
		})
	}
	return cases
}

// checkPageInBrowser writes c's page and checks it, at a desktop's width
// and at a phone's.
func checkPageInBrowser(t *testing.T, c htmlCase, chromium, shots string) {
	page := filepath.Join(t.TempDir(), "report.html")
	args := append([]string{c.args[0], "--html", page}, c.args[1:]...)
	code, _, stderr := runCmd(args...)
	switch {
	case code == 0 && !c.mustViolate:
		t.Skipf("%s: not a violation", strings.Join(c.args, " "))
	case code != 1:
		t.Fatalf("%s: exit %d, want 1 (a violation):\n%s", strings.Join(args, " "), code, stderr)
	}
	if _, err := os.Stat(page); err != nil {
		t.Fatalf("%s wrote no page: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	want := mainAnomaly(t, c.args)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	wide, err := browser.Inspect(ctx, page, browser.Options{
		Chromium:       chromium,
		Height:         shotHeight,
		Selectors:      pageSelectors,
		Group:          "section.anomaly",
		Screenshot:     shots != "",
		ScreenshotJPEG: shotQuality,
	})
	if browser.Unavailable(err) {
		browserUnavailable(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	checkLoadsNothing(t, wide)
	checkVerdict(t, wide, want)
	checkAnomalies(t, wide, want)
	checkPictures(t, wide)

	if c.wideOnly {
		return
	}
	narrow, err := browser.Inspect(ctx, page, browser.Options{
		Chromium:       chromium,
		Width:          narrowWidth,
		Height:         shotHeight,
		Selectors:      pageSelectors,
		Group:          "section.anomaly",
		Screenshot:     shots != "",
		ScreenshotJPEG: shotQuality,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkPictures(t, narrow)
	// On a phone a table's rows are cards: the reasons as wide as the
	// page, not a squeezed column, and no heading broken inside a word.
	for _, b := range narrow.Select("table td.reason") {
		if b.Visible && b.Width < 0.6*narrowWidth {
			t.Errorf("at %dpx wide, %s is %.0fpx wide: squeezed into a column", narrowWidth, b, b.Width)
		}
	}
	for _, b := range append(wide.Select("thead th"), narrow.Select("thead th")...) {
		// One line of text, with the cell's padding, is under three
		// times the font's size high.
		if b.Visible && b.Height > 3*b.FontSize && !strings.Contains(b.Text, " ") {
			t.Errorf("the heading %s is broken inside its word", b)
		}
	}
	if narrow.ScrollWidth > narrowWidth+1 {
		t.Errorf("at %dpx wide the page is %vpx wide: the reader must scroll the whole page sideways "+
			"(wide pictures and tables should scroll inside their own boxes)", narrowWidth, narrow.ScrollWidth)
	}
	if shots != "" {
		name := strings.NewReplacer("/", "_", ".", "_").Replace(strings.TrimPrefix(t.Name(), "TestHTMLInBrowser/"))
		for _, s := range []struct {
			suffix string
			image  []byte
		}{{"", wide.Screenshot}, {fmt.Sprintf("-%d", narrowWidth), narrow.Screenshot}} {
			if err := os.WriteFile(filepath.Join(shots, name+s.suffix+".jpg"), s.image, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// browserUnavailable skips the test for err, which says there is no
// browser to run, or fails it where ISOCHECK_BROWSER_REQUIRED=1 (CI).
func browserUnavailable(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("ISOCHECK_BROWSER_REQUIRED") == "1" {
		t.Fatalf("%v, and ISOCHECK_BROWSER_REQUIRED=1", err)
	}
	t.Skip(err)
}

// expectedAnomaly is what `explain --json` says of the anomaly a page
// must show first: its name and its counterexample's transactions.
type expectedAnomaly struct {
	name  string
	txns  []string
	known bool // false for a command without --json (lwt)
}

// mainAnomaly runs args with --json and returns the anomaly of the
// weakest broken level (--level all) or of the level checked.
func mainAnomaly(t *testing.T, args []string) expectedAnomaly {
	t.Helper()
	if args[0] != "explain" {
		return expectedAnomaly{}
	}
	_, stdout, stderr := runCmd(append([]string{args[0], "--json"}, args[1:]...)...)
	type anomaly struct {
		Name         string `json:"name"`
		Transactions []struct {
			Name string `json:"name"`
		} `json:"transactions"`
	}
	type levelJSON struct {
		Level   string   `json:"level"`
		Anomaly *anomaly `json:"anomaly"`
	}
	var out struct {
		levelJSON
		Levels        []levelJSON `json:"levels"`
		WeakestBroken string      `json:"weakest_broken"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%s --json: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	a := out.Anomaly
	for _, l := range out.Levels {
		if l.Level == out.WeakestBroken {
			a = l.Anomaly
		}
	}
	if a == nil {
		t.Fatalf("%s --json names no anomaly:\n%s", strings.Join(args, " "), stdout)
	}
	e := expectedAnomaly{name: a.Name, known: true}
	for _, tx := range a.Transactions {
		e.txns = append(e.txns, tx.Name)
	}
	return e
}

// checkLoadsNothing checks that the page made no request and logged no
// error.
func checkLoadsNothing(t *testing.T, p *browser.Page) {
	t.Helper()
	for _, r := range p.Requests {
		t.Errorf("the page requested %s (%s); it must load nothing", r.URL, r.Type)
	}
	for _, m := range p.Errors() {
		t.Errorf("the console has an %s: %s (%s:%d)", m.Level, m.Text, m.URL, m.Line)
	}
}

// checkVerdict checks that the verdict and the table of levels are
// visible, and that the verdict names the anomaly.
func checkVerdict(t *testing.T, p *browser.Page, want expectedAnomaly) {
	t.Helper()
	for _, sel := range []string{".verdict", "table.levels"} {
		boxes := p.Select(sel)
		if len(boxes) == 0 {
			t.Errorf("the page has no %s", sel)
		}
		for _, b := range boxes {
			if !b.Visible || b.Text == "" {
				t.Errorf("%s: not visible", b)
			}
		}
	}
	if verdicts := p.Select(".verdict"); want.known && len(verdicts) > 0 && !strings.Contains(verdicts[0].Text, want.name) {
		t.Errorf("the verdict says %q, not the anomaly %s", verdicts[0].Text, want.name)
	}
}

// checkAnomalies checks that each anomaly's name, transactions and
// dependencies are visible, and that the first anomaly is want, with
// want's transactions in its table and its picture.
func checkAnomalies(t *testing.T, p *browser.Page, want expectedAnomaly) {
	t.Helper()
	sections := p.Select("section.anomaly")
	if len(sections) == 0 {
		t.Fatal("the page has no section.anomaly")
	}
	if want.known && sections[0].Data["name"] != want.name {
		t.Errorf("the first anomaly is %q, want %q (what explain --json names)", sections[0].Data["name"], want.name)
	}
	for i, s := range sections {
		name := s.Data["name"]
		if name == "" {
			t.Errorf("section.anomaly %d has no data-name", i)
		}
		if !s.Visible {
			t.Errorf("the section of %s is not visible: %s", name, s)
		}
		titles := inGroup(p.Select(".anomaly-name"), i)
		if !slices.ContainsFunc(titles, func(b browser.Box) bool { return b.Visible && strings.Contains(b.Text, name) }) {
			t.Errorf("no visible .anomaly-name says %s: %v", name, titles)
		}
		rows := inGroup(p.Select("table.txns tr.txn"), i)
		nodes := inGroup(p.Select("g.node"), i)
		for _, b := range append(append(rows, nodes...), inGroup(p.Select("table.edges tr.edge"), i)...) {
			if !b.Visible {
				t.Errorf("%s: not visible", b)
			}
		}
		for _, b := range inGroup(p.Select("text.edge-label"), i) {
			if !b.Visible || b.Text == "" {
				t.Errorf("%s: an edge label a reader cannot read", b)
			}
		}
		txns := want.txns
		if i > 0 || !want.known {
			txns = nil
			for _, r := range rows {
				txns = append(txns, r.Data["name"])
			}
		}
		for _, name := range txns {
			if !slices.ContainsFunc(rows, func(b browser.Box) bool { return b.Data["name"] == name }) {
				t.Errorf("%s: no row of table.txns for the transaction %s", s.Data["name"], name)
			}
			if len(nodes) > 0 && !slices.ContainsFunc(nodes, func(b browser.Box) bool { return drawsTxn(b, name) }) && !leftOut(p, i, name) {
				t.Errorf("%s: the picture has no g.node for the transaction %s, and does not say it left one out", s.Data["name"], name)
			}
		}
		if i == 0 && len(nodes) == 0 && len(inGroup(p.Select("g.op"), i)) == 0 {
			t.Errorf("%s: no picture of the counterexample (no g.node, no g.op)", s.Data["name"])
		}
	}
}

// checkPictures checks that in each picture no two of the title, the
// transactions, the operations and the dependencies' labels overlap, and
// that all lie inside the picture.
func checkPictures(t *testing.T, p *browser.Page) {
	t.Helper()
	svgs := map[int]browser.Box{}
	for _, b := range p.Select("svg") {
		if _, ok := svgs[b.SVG]; !ok {
			svgs[b.SVG] = b // an outermost svg comes before those inside it
		}
	}
	bySVG := map[int][]browser.Box{}
	for _, sel := range []string{"text.title", "g.node", "text.edge-label", "g.op"} {
		for _, b := range p.Select(sel) {
			bySVG[b.SVG] = append(bySVG[b.SVG], b)
		}
	}
	for _, b := range p.Select("svg text") {
		if b.Visible && b.FontSize < minTextSize-0.01 {
			t.Errorf("picture %d: %s drawn at %.1fpx, under %dpx (at %vpx wide)", b.SVG, b, b.FontSize, minTextSize, p.ViewportWidth)
		}
		if svg, ok := svgs[b.SVG]; ok && b.Visible && !browser.Within(b, svg) {
			t.Errorf("picture %d: the text %s runs out of the picture (%s)", b.SVG, b, svg)
		}
	}
	checkArrowEnds(t, p)
	for i, boxes := range bySVG {
		svg, ok := svgs[i]
		if !ok {
			t.Errorf("%d boxes outside every svg, such as %s", len(boxes), boxes[0])
			continue
		}
		for _, pair := range browser.Overlaps(boxes) {
			t.Errorf("picture %d: %s overlaps %s", i, pair[0], pair[1])
		}
		for _, b := range boxes {
			if !browser.Within(b, svg) {
				t.Errorf("picture %d: %s is outside the picture (%s)", i, b, svg)
			}
		}
	}
}

// checkArrowEnds fails if an arrow that names the operation it ends at
// (data-to-line) does not end, as drawn, beside that operation's row of
// its target's box: its head touching the box's side, its middle within
// the row.
func checkArrowEnds(t *testing.T, p *browser.Page) {
	t.Helper()
	edges, heads := p.Select("g.edge"), p.Select("g.edge g.head")
	if len(edges) != len(heads) {
		t.Fatalf("%d arrows, %d arrowheads", len(edges), len(heads))
	}
	nodes, lines := p.Select("g.node"), p.Select("g.node g.line")
	for i, e := range edges {
		line := e.Data["to-line"]
		if line == "" {
			continue
		}
		head := heads[i]
		node := slices.IndexFunc(nodes, func(n browser.Box) bool { return n.SVG == e.SVG && n.Data["id"] == e.Data["to"] })
		if node < 0 {
			t.Errorf("%s: no box for its target", e)
			continue
		}
		box := nodes[node]
		row := slices.IndexFunc(lines, func(l browser.Box) bool { return l.Data["line"] == line && browser.Within(l, box) })
		if row < 0 {
			t.Errorf("%s: its target %s has no line %s", e, box, line)
			continue
		}
		r := lines[row]
		mid := head.Y + head.Height/2
		touches := math.Abs(head.X+head.Width-box.X) < 2 || math.Abs(head.X-(box.X+box.Width)) < 2
		if !touches || mid < r.Y-2 || mid > r.Y+r.Height+2 {
			t.Errorf("%s -> %s line %s: its head %s is not beside the row %s of the box %s", e.Data["from"], e.Data["to"], line, head, r, box)
		}
	}
}

// leftOut reports whether the picture of the group'th section says it
// left some transactions out, and name is not an end of a dependency the
// section lists.
func leftOut(p *browser.Page, group int, name string) bool {
	for _, svg := range inGroup(p.Select("svg"), group) {
		if strings.Contains(svg.Text, "left out of the picture") {
			for _, e := range inGroup(p.Select("table.edges tr.edge"), group) {
				// "from –KIND key→ to reason...": the ends come first.
				f := strings.Fields(e.Text)
				arrow := slices.IndexFunc(f, func(w string) bool { return strings.HasSuffix(w, "→") })
				if len(f) > 0 && f[0] == name || arrow >= 0 && arrow+1 < len(f) && f[arrow+1] == name {
					return false // an end of a dependency, which the picture must draw
				}
			}
			return true
		}
	}
	return false
}

// drawsTxn reports whether the g.node box b is the transaction name's:
// its id is the name, or the name is its title, the first text drawn in
// it.
func drawsTxn(b browser.Box, name string) bool {
	return b.Data["id"] == name || b.Text == name || strings.HasPrefix(b.Text, name+" ")
}

// inGroup returns the boxes in the group'th section.
func inGroup(boxes []browser.Box, group int) []browser.Box {
	return slices.DeleteFunc(slices.Clone(boxes), func(b browser.Box) bool { return b.Group != group })
}
