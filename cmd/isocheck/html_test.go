package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// page is what a test reads off a page --html wrote.
type page struct {
	verdict   string            // the banner's text
	levels    map[string]string // level → its row's text
	anomalies []string          // the sections' data-name, in order
	txns      map[string]bool   // every counterexample transaction's name
	run       string            // the run section's text
	text      string            // all the text
}

// readPage parses the page at path.
func readPage(t *testing.T, path string) page {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the page was not written: %v", err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	p := page{levels: map[string]string{}, txns: map[string]bool{}}
	var all strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			all.WriteString(n.Data + " ")
		}
		if n.Type == html.ElementNode {
			if n.Data == "script" {
				t.Errorf("the page has a script")
			}
			cls, name := attr(n, "class"), attr(n, "data-name")
			switch {
			case hasClass(cls, "verdict"):
				p.verdict = textOf(n)
			case n.Data == "section" && hasClass(cls, "anomaly"):
				p.anomalies = append(p.anomalies, name)
			case n.Data == "tr" && hasClass(cls, "txn"):
				p.txns[name] = true
			case n.Data == "section" && hasClass(cls, "run"):
				p.run = textOf(n)
			case n.Data == "table" && hasClass(cls, "levels"):
				for _, row := range rows(n) {
					if f := strings.Fields(row); len(f) > 0 {
						p.levels[f[0]] = row
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	p.text = all.String()
	return p
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(classes, c string) bool { return strings.Contains(" "+classes+" ", " "+c+" ") }

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// rows are the texts of the body rows of a table.
func rows(table *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" {
			if textOf(n) != "" && !hasHeader(n) {
				out = append(out, textOf(n))
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(table)
	return out
}

func hasHeader(tr *html.Node) bool {
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "th" && tr.Parent != nil && tr.Parent.Data == "thead" {
			return true
		}
	}
	return false
}

// TestHTMLPageSaysWhatTheReportSays writes the page of each shipped
// key-value example and compares it with the JSON report of the same
// check: the same verdict, one section per anomaly found in the same
// order, and every transaction of the main counterexample in its table.
func TestHTMLPageSaysWhatTheReportSays(t *testing.T) {
	cases := []struct{ file, level string }{
		{"lost-update.jsonl", "si"},
		{"write-skew.jsonl", "ser"},
		{"long-fork.jsonl", "pc"},
		{"causality-violation.jsonl", "cc"},
		{"jepsen-list-append.edn", "ser"},
		{"serializable.jsonl", "ser"},
	}
	for _, c := range cases {
		t.Run(c.file+"@"+c.level, func(t *testing.T) {
			path := "../../examples/" + c.file
			out := filepath.Join(t.TempDir(), "r.html")
			code, stdout, errs := runCmd("explain", "--level", c.level, "--html", out, path)
			if code != exitSatisfied && code != exitViolated || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			_, js, _ := runCmd("explain", "--json", "--level", c.level, path)
			var rep struct {
				Satisfied *bool
				Anomaly   *struct {
					Name string
					Txns []struct{ Name string } `json:"transactions"`
				}
				Anomalies []struct{ Name string }
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil {
				t.Fatal(err)
			}
			p := readPage(t, out)
			upper := strings.ToUpper(c.level)
			if row := p.levels[upper]; row == "" {
				t.Errorf("the level table has no row for %s: %v", upper, p.levels)
			}
			if code == exitSatisfied {
				if !strings.Contains(p.verdict, "satisfied") || len(p.anomalies) != 0 {
					t.Errorf("a satisfied level: banner %q, sections %v", p.verdict, p.anomalies)
				}
				return
			}
			if !strings.Contains(p.verdict, "violated") || !strings.Contains(p.verdict, rep.Anomaly.Name) {
				t.Errorf("banner %q does not say %s violated: %s", p.verdict, upper, rep.Anomaly.Name)
			}
			var want []string
			for _, a := range rep.Anomalies {
				want = append(want, a.Name)
			}
			if len(want) == 0 {
				want = []string{rep.Anomaly.Name}
			}
			if strings.Join(p.anomalies, ",") != strings.Join(want, ",") {
				t.Errorf("sections %v, want the anomalies of the report %v\n%s", p.anomalies, want, stdout)
			}
			for _, tx := range rep.Anomaly.Txns {
				if !p.txns[tx.Name] {
					t.Errorf("transaction %s of the counterexample is not in the page's table (%v)", tx.Name, p.txns)
				}
			}
		})
	}
}

// TestHTMLEveryVertical writes the page of each kind of check and looks
// for what only that kind shows.
func TestHTMLEveryVertical(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name     string
		args     []string
		code     int
		sections []string
		says     []string // in the page's text
	}{
		{"all levels", []string{"check", "--level", "all", "../../examples/write-skew.jsonl"}, exitViolated, nil, []string{"strongest level kept", "SI"}},
		{"SQL", []string{"explain", "../../examples/sql-phantom-ser.jsonl"}, exitViolated, []string{"WriteSkew"}, []string{"SELECT"}},
		{"SQL satisfied", []string{"explain", "../../examples/sql-mixed-ok.jsonl"}, exitSatisfied, nil, []string{"satisfied"}},
		{"lwt", []string{"lwt", "../../examples/cas-stale-read.edn"}, exitViolated, []string{"NotLinearizable"}, []string{"process 0", "process 1"}},
		{"explore", []string{"explore", "--app", "courseware", "--level", "rc", "--sessions", "2", "--txns", "2"}, exitViolated, []string{"broken assertion", "SessionGuaranteeViolation"}, []string{"courseware"}},
		// How it came about: the anomaly SI forbids it by, with its own
		// counterexample, as the text ends with it.
		{"explore, how it came about", []string{"explore", "--app", "shopping-cart", "--level", "cc"}, exitViolated, []string{"broken assertion", "LostUpdate"}, []string{"How it came about: the database kept CC, which allows this history; SI would not"}},
		{"run", []string{"run", "--sessions", "3", "--txns", "20", "--check", "ser", "-o", filepath.Join(dir, "run.jsonl")}, exitSatisfied, nil, []string{"sqlite", "p50", "committed"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".html")
			args := append([]string{c.args[0], "--html", out}, c.args[1:]...)
			code, stdout, errs := runCmd(args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, errs)
			}
			p := readPage(t, out)
			if c.sections != nil && strings.Join(p.anomalies, ",") != strings.Join(c.sections, ",") {
				t.Errorf("sections %v, want %v", p.anomalies, c.sections)
			}
			for _, s := range c.says {
				if !strings.Contains(p.text, s) {
					t.Errorf("case %d: the page does not say %q", i, s)
				}
			}
			if c.name == "run" && !strings.Contains(p.run, "committed") {
				t.Errorf("the page has no run section: %q", p.run)
			}
		})
	}
}

// TestHTMLNoVerdict writes a page for a check that timed out: it says so.
func TestHTMLNoVerdict(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	code, _, errs := runCmd("check", "--timeout", "1ms", "--html", out, bigHistory(t))
	if code != exitNoVerdict {
		t.Fatalf("exit %d, want %d: %s", code, exitNoVerdict, errs)
	}
	p := readPage(t, out)
	if !strings.Contains(p.verdict, "no verdict") || !strings.Contains(p.text, "timed out") {
		t.Errorf("banner %q: the page does not say there is no verdict, and why", p.verdict)
	}
}

// TestHTMLRegisterFaults: the page of a register history whose nemesis
// partitioned the network lists the faults at their times and marks them
// on the timeline of the operations, on their clock.
func TestHTMLRegisterFaults(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cas.edn")
	src := `{:type :invoke, :f :write, :value 1, :time 1000000000, :process 0}
{:type :ok, :f :write, :value 1, :time 2000000000, :process 0}
{:type :info, :f :start-partition, :value nil, :time 2500000000, :process :nemesis}
{:type :info, :f :start-partition, :value [:isolated {"n1" #{"n2"}}], :time 2600000000, :process :nemesis}
{:type :invoke, :f :cas, :value [1 2], :time 3000000000, :process 1}
{:type :ok, :f :cas, :value [1 2], :time 4000000000, :process 1}
{:type :invoke, :f :read, :value nil, :time 5000000000, :process 0}
{:type :ok, :f :read, :value 1, :time 6000000000, :process 0}
`
	if err := os.WriteFile(in, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cas.html")
	code, stdout, errs := runCmd("lwt", "--html", out, in)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitViolated, stdout, errs)
	}
	p := readPage(t, out)
	if !strings.Contains(p.run, `2.500s start-partition [:isolated {"n1" #{"n2"}}]`) {
		t.Errorf("the page does not list the partition at its time: %q", p.run)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The timeline is an SVG in the page: the mark's label is its text.
	if n := strings.Count(string(raw), "start-partition"); n < 2 {
		t.Errorf("the partition appears %d times in the page; want it listed and marked on the timeline", n)
	}
}
