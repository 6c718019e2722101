package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplore pins explore's contract: exit 1 with the first broken
// history and how it came about, 0 when every history keeps the
// assertions, 2 for bad usage, 3 out of time.
func TestExplore(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"courseware breaks at RC", []string{"--app", "courseware", "--sessions", "2", "--txns", "2", "--level", "rc"}, exitViolated,
			[]string{"histories: ", "break an assertion", "told enrolled", "The history (native JSONL):", `"id":"enroll(`, "How it came about: the database kept RC", "VIOLATED"}},
		{"courseware keeps at SER", []string{"--app", "courseware", "--sessions", "2", "--txns", "2", "--level", "ser"}, exitSatisfied,
			[]string{"SER explored under CC", "every history keeps the assertions"}},
		{"dfs", []string{"--app", "courseware", "--sessions", "2", "--txns", "1", "--level", "ser", "--dfs"}, exitSatisfied,
			[]string{"dfs", "every history keeps the assertions"}},
		{"unknown app", []string{"--app", "bank"}, exitBadInput, []string{"--app must be one of"}},
		{"no sessions", []string{"--app", "tpcc", "--sessions", "0"}, exitBadInput, []string{"at least 1"}},
		{"level it cannot explore", []string{"--app", "tpcc", "--level", "sser"}, exitBadInput, []string{"cannot explore under SSER"}},
		{"base stronger than level", []string{"--app", "tpcc", "--level", "ra", "--base", "cc"}, exitBadInput, []string{"stronger than RA"}},
		// A stopped exploration says so, with its counts "so far", and
		// gives no verdict unless it found a broken history.
		{"out of time", []string{"--app", "tpcc", "--sessions", "4", "--txns", "4", "--level", "ser", "--timeout", "200ms"}, exitNoVerdict,
			[]string{"incomplete: stopped by --timeout after 200ms: ", " histories explored so far; not every history was explored\n", "--timeout 1m", "no verdict: "}},
		{"out of time, broken", []string{"--app", "courseware", "--sessions", "3", "--txns", "3", "--level", "rc", "--timeout", "500ms"}, exitViolated,
			[]string{"incomplete: stopped by --timeout after 500ms: ", "not every history was explored", "of the histories explored break an assertion. The first:"}},
		{"first", []string{"--app", "courseware", "--sessions", "3", "--txns", "3", "--level", "rc", "--first"}, exitViolated,
			[]string{"incomplete: stopped at the first history that breaks an assertion (--first): "}},
		{"out of time, json", []string{"--app", "tpcc", "--sessions", "4", "--txns", "4", "--level", "ser", "--timeout", "200ms", "--json"}, exitNoVerdict,
			[]string{`"complete": false`, `"stopped": "stopped by --timeout after 200ms"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			status := run(append([]string{"explore"}, c.args...), &out, &errb)
			got := out.String() + errb.String()
			if status != c.status {
				t.Fatalf("exit %d, want %d\n%s", status, c.status, got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestExploreAll writes every history; each is a history `isocheck check`
// accepts at the level explored, and the broken ones are marked.
func TestExploreAll(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	status := run([]string{"explore", "--app", "courseware", "--sessions", "2", "--txns", "2", "--level", "ra", "--all", dir, "--json"}, &out, &errb)
	if status != exitViolated && status != exitSatisfied {
		t.Fatalf("exit %d\n%s%s", status, out.String(), errb.String())
	}
	var rep exploreReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	broken, _ := filepath.Glob(filepath.Join(dir, "*-broken.jsonl"))
	if len(files) != rep.Histories || len(broken) != rep.Failed || rep.Histories == 0 || !rep.Complete {
		t.Fatalf("%d files (%d broken) for %+v", len(files), len(broken), rep)
	}
	// The evidence of a violation is where every report has it.
	if broke := rep.Failed > 0; broke != (rep.Anomaly != nil && len(rep.Anomaly.Failures) > 0) || broke != (status == exitViolated) || rep.Level != "RA" {
		t.Errorf("exit %d, %d broken histories, level %q, anomaly %+v", status, rep.Failed, rep.Level, rep.Anomaly)
	}
	for _, f := range files {
		var o, e bytes.Buffer
		if s := run([]string{"check", "--level", "ra", f}, &o, &e); s != exitSatisfied {
			content, _ := os.ReadFile(f)
			t.Fatalf("check --level ra %s: exit %d\n%s%s\n%s", f, s, o.String(), e.String(), content)
		}
	}
}
