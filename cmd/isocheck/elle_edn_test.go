package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isocheck/isocheck/internal/edn"
)

// TestElleEDN runs check and explain with --elle --edn and compares the
// output with testdata/elle-edn/NAME.edn (ISOCHECK_UPDATE_GOLDEN=1
// rewrites those files). Each output must be exactly one EDN map, with
// Elle's keys as keywords, and the exit status that of the verdict.
func TestElleEDN(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		// keys are the keys the map must have, in order.
		keys []string
	}{
		{"write-skew-si", []string{"check", "--level", "si", "../../examples/write-skew.jsonl"}, exitSatisfied, []string{"valid?"}},
		{"write-skew-ser", []string{"check", "--level", "ser", "../../examples/write-skew.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
		{"write-skew-explain", []string{"explain", "--level", "ser", "../../examples/write-skew.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
		{"write-skew-all", []string{"check", "--level", "all", "../../examples/write-skew.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
		{"serializable-all", []string{"check", "--level", "all", "../../examples/serializable.jsonl"}, exitSatisfied, []string{"valid?"}},
		{"lost-update-si", []string{"check", "--level", "si", "../../examples/lost-update.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
		// An aborted read, a lost update and a write skew: every one is
		// listed at SER, the write skew not at SI, which allows it.
		{"three-ser", []string{"check", "--level", "ser", "testdata/elle-edn/three.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
		{"three-si", []string{"check", "--level", "si", "testdata/elle-edn/three.jsonl"}, exitViolated, []string{"valid?", "anomaly-types", "anomalies", "not", "also-not"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{tt.args[0], "--elle", "--edn"}, tt.args[1:]...)
			code, out, errs := runCmd(args...)
			if code != tt.code {
				t.Fatalf("isocheck %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, tt.code, errs)
			}
			golden := filepath.Join("testdata", "elle-edn", tt.name+".edn")
			if os.Getenv("ISOCHECK_UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("isocheck %s:\n%s\nwant (%s):\n%s", strings.Join(args, " "), out, golden, want)
			}

			d := edn.NewDecoderBytes([]byte(out))
			v, err := d.Decode()
			if err != nil {
				t.Fatalf("the output is not EDN: %v\n%s", err, out)
			}
			if d.More() {
				t.Errorf("the output holds more than one form:\n%s", out)
			}
			m, ok := v.(edn.Map)
			if !ok {
				t.Fatalf("the output is a %T, not a map", v)
			}
			var keys []string
			for _, kv := range m {
				k, ok := kv.Key.(edn.Keyword)
				if !ok {
					t.Errorf("key %#v is not a keyword", kv.Key)
				}
				keys = append(keys, string(k))
			}
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("keys %v, want %v", keys, tt.keys)
			}
			valid, _ := m.Get(edn.Keyword("valid?"))
			if valid != (tt.code == exitSatisfied) {
				t.Errorf(":valid? %#v for exit %d", valid, tt.code)
			}
			if tt.code != exitViolated {
				return
			}
			types, _ := m.Get(edn.Keyword("anomaly-types"))
			anomalies, _ := m.Get(edn.Keyword("anomalies"))
			ts, ok := types.([]any)
			am, ok2 := anomalies.(edn.Map)
			if !ok || !ok2 || len(ts) == 0 || len(ts) != len(am) {
				t.Fatalf(":anomaly-types %#v and :anomalies %#v do not match", types, anomalies)
			}
			for i, x := range ts {
				if _, ok := x.(edn.Keyword); !ok || am[i].Key != x {
					t.Errorf("anomaly type %#v: not a keyword, or not the key of :anomalies", x)
				}
			}
			for _, k := range []string{"not", "also-not"} {
				if s, _ := m.Get(edn.Keyword(k)); s != nil {
					if _, ok := s.(edn.Set); !ok {
						t.Errorf(":%s is a %T, not a set", k, s)
					}
				}
			}
		})
	}
}

// TestElleEDNUsage checks the flags that cannot go with --edn: each is a
// usage error (exit 2) that prints nothing on stdout.
func TestElleEDNUsage(t *testing.T) {
	ws := "../../examples/write-skew.jsonl"
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"check", "--edn", ws}, "give --elle with it"},
		{[]string{"explain", "--edn", "--level", "all", ws}, "give --elle with it"},
		{[]string{"check", "--elle", "--edn", "--json", ws}, "give one"},
		{[]string{"check", "--elle", "--edn", "--stats", ws}, "--stats cannot go with --edn"},
		{[]string{"check", "--elle", "--edn", "--counterexample", "-", ws}, "write the counterexample, the pictures and the page to files"},
		{[]string{"check", "--elle", "--edn", "--format", "sql", "../../examples/sql-phantom-ser.jsonl"}, "a SQL history has no Elle result map"},
	}
	for _, tt := range tests {
		code, out, errs := runCmd(tt.args...)
		if code != exitBadInput || out != "" || !strings.Contains(errs, tt.msg) {
			t.Errorf("isocheck %s: exit %d, stdout %q, stderr %q; want exit 2, nothing, and %q", strings.Join(tt.args, " "), code, out, errs, tt.msg)
		}
	}
}

// TestElleEDNNoVerdict checks that a run stopped before its verdict
// prints {:valid? :unknown, :error REASON} and exits 3.
func TestElleEDNNoVerdict(t *testing.T) {
	for _, lvl := range []string{"si", "all"} {
		code, out, errs := runCmd("check", "--elle", "--edn", "--level", lvl, "--timeout", "1ns", "../../examples/write-skew.jsonl")
		if code != exitNoVerdict {
			t.Fatalf("--level %s: exit %d, want %d; stderr:\n%s", lvl, code, exitNoVerdict, errs)
		}
		v, err := edn.NewDecoderBytes([]byte(out)).Decode()
		m, ok := v.(edn.Map)
		if err != nil || !ok {
			t.Fatalf("--level %s: the output is not an EDN map (%v):\n%s", lvl, err, out)
		}
		valid, _ := m.Get(edn.Keyword("valid?"))
		reason, _ := m.Get(edn.Keyword("error"))
		if s, _ := reason.(string); valid != edn.Keyword("unknown") || !strings.Contains(s, "timed out") {
			t.Errorf("--level %s: got %s, want :valid? :unknown and the reason", lvl, out)
		}
	}
}
