package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// run --check names each broken level's anomaly in the table, and
// explains the weakest one: every name must be one the level forbids,
// on every simulated store and every fault it injects.
func TestRunCheckNamesWhatTheLevelForbids(t *testing.T) {
	row := regexp.MustCompile(`^(SSER|SER|SI|PC|CC|RA|RC)\s+violated\s+(\S+)`)
	headline := regexp.MustCompile(`^(SSER|SER|SI|PC|CC|RA|RC): VIOLATED: (\S+)`)
	dir := t.TempDir()
	broken := 0
	for _, store := range []string{"rc", "si", "ser"} {
		for _, fault := range []string{"", "dirty-read", "fractured-read", "lost-update", "stale-read"} {
			dsn := "sim://" + store
			if fault != "" {
				dsn += "?fault=" + fault
			}
			for _, run := range []struct{ workload, seed string }{{"mini", "1"}, {"mini", "2"}, {"general", "1"}, {"general", "2"}, {"general", "3"}} {
				workload := run.workload
				code, stdout, stderr := runCmd("run", "--db", dsn, "--workload", workload, "--seed", run.seed, "--sessions", "5", "--txns", "40", "--keys", "8", "--ops", "4",
					"--check", "all", "-o", dir+"/h.jsonl", "--force")
				if code == exitBadInput && strings.Contains(stderr, "applies to store") {
					continue // a fault of another store
				}
				if code != exitSatisfied && code != exitViolated {
					t.Fatalf("%s %s: exit %d\n%s", dsn, workload, code, stderr)
				}
				for _, line := range strings.Split(stdout, "\n") {
					m := row.FindStringSubmatch(line)
					if m == nil {
						m = headline.FindStringSubmatch(line)
					}
					if m == nil || m[2] == "as" {
						continue
					}
					broken++
					l, err := level.Parse(m[1])
					if err != nil {
						t.Fatal(err)
					}
					if a, ok := verdict.ParseAnomaly(m[2]); !ok || !verdict.Forbids(l, a) {
						t.Errorf("%s %s: %q names %s, which %v allows\n%s", dsn, workload, line, m[2], l, stdout)
					}
				}
			}
		}
	}
	t.Logf("%d broken levels named", broken)
	if broken < 50 {
		t.Errorf("only %d broken levels named over every store and fault: the test checks too little", broken)
	}
}
