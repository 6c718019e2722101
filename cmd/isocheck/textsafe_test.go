package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileHistory writes a lost update whose ids, sessions, keys and string
// values all hold s.
func hostileHistory(t *testing.T, s string) string {
	t.Helper()
	q, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	j := func(prefix string) string { return `"` + prefix + string(q[1:len(q)-1]) + `"` }
	lines := []string{
		`{"session": ` + j("s1") + `, "id": ` + j("init") + `, "ops": [["w", ` + j("k") + `, ` + j("v0") + `]]}`,
		`{"session": ` + j("s1") + `, "id": ` + j("deposit") + `, "ops": [["r", ` + j("k") + `, ` + j("v0") + `], ["w", ` + j("k") + `, ` + j("v1") + `]]}`,
		`{"session": ` + j("s2") + `, "id": ` + j("withdraw") + `, "ops": [["r", ` + j("k") + `, ` + j("v0") + `], ["w", ` + j("k") + `, ` + j("v2") + `]]}`,
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawControl returns the first character of out, other than a newline,
// that a terminal would act on rather than show.
func rawControl(out string) (rune, bool) {
	for _, r := range out {
		switch {
		case r == '\n':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return r, true
		}
	}
	return 0, false
}

// TestOutputEscapesInput feeds ids, sessions, keys and values holding
// terminal controls through every text output that shows them: none
// passes a control through, and the verdict still shows.
func TestOutputEscapesInput(t *testing.T) {
	hostile := map[string]string{
		"OSC title": "\x1b]0;pwned\a",
		"clear":     "\x1b[2J",
		"conceal":   "\x1b[8m",
		"BEL":       "\a",
		"CR":        "x\rSI: satisfied",
		"LF":        "x\nSI: satisfied",
		"RLO":       "\u202edeifsitas",
		"isolate":   "\u2066x\u2069",
		"C1 CSI":    "\u009b2J",
	}
	commands := []struct {
		args    []string
		code    int
		verdict string // what the output must still say
	}{
		{[]string{"check"}, exitViolated, "SI: VIOLATED"},
		{[]string{"explain"}, exitViolated, "SI: VIOLATED"},
		{[]string{"check", "--level", "all"}, exitViolated, "VIOLATED"},
		{[]string{"check", "--level", "all", "--elle"}, exitViolated, "VIOLATED"},
		{[]string{"explain", "--level", "all"}, exitViolated, "VIOLATED"},
		{[]string{"explain", "--dot", "-"}, exitViolated, "SI violated"},
		{[]string{"stats"}, exitSatisfied, "transactions: 3"},
	}
	for name, s := range hostile {
		path := hostileHistory(t, s)
		for _, c := range commands {
			args := append(append([]string{}, c.args...), "--color", "never", path)
			if c.args[0] == "stats" {
				args = []string{"stats", path}
			}
			t.Run(name+"/"+strings.Join(c.args, " "), func(t *testing.T) {
				code, out, errs := runCmd(args...)
				if code != c.code {
					t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
				}
				if r, ok := rawControl(out); ok {
					t.Errorf("stdout holds a raw %U:\n%s", r, out)
				}
				if r, ok := rawControl(errs); ok {
					t.Errorf("stderr holds a raw %U:\n%s", r, errs)
				}
				if !strings.Contains(out, c.verdict) {
					t.Errorf("stdout lacks %q:\n%s", c.verdict, out)
				}
			})
		}
	}
}

// TestJSONKeepsInput: --json and convert keep the input's strings exactly.
func TestJSONKeepsInput(t *testing.T) {
	const s = "\x1b[2J\u202e"
	path := hostileHistory(t, s)
	_, out, errs := runCmd("check", "--json", path)
	var rep struct {
		Anomaly struct {
			Txns []struct {
				Session string `json:"session"`
			} `json:"transactions"`
		} `json:"anomaly"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errs)
	}
	if len(rep.Anomaly.Txns) == 0 || rep.Anomaly.Txns[0].Session != "s1"+s {
		t.Errorf("JSON's session is not the input's %q:\n%s", "s1"+s, out)
	}
	conv := filepath.Join(t.TempDir(), "out.jsonl")
	if code, _, errs := runCmd("convert", "--to", "jsonl", path, conv); code != exitSatisfied {
		t.Fatalf("convert: exit %d\n%s", code, errs)
	}
	code, out, errs := runCmd("check", "--json", conv)
	if code != exitViolated || !strings.Contains(out, `"s1\u001b[2J`+"\u202e\"") {
		t.Errorf("check --json of the converted history: exit %d, lacks the session as the input wrote it:\n%s%s", code, out, errs)
	}
}

// TestEDNErrorsEscapeInput: an error in an EDN history quotes what it
// found with its control characters escaped, and still names the file and
// the line.
func TestEDNErrorsEscapeInput(t *testing.T) {
	event := "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0}\n"
	for _, tc := range []struct {
		name, content, where string
	}{
		{"ESC", "\x1bc\n", ":1: "},
		{"NUL in a keyword", "[:a\x00]\n", ":1: "},
		{"NUL", event + "\x00\n", ":2: "},
		{"CSI in a value", event + "{:type :x\x1b[2J, :f :txn, :value [], :process 0}\n", ":2: "},
		{"ESC in a key", event + "{:type :invoke, :f :txn, :value [[:r :x\x1b]c nil]], :process 1}\n", ":2: "},
		{"RLO", event + "\u202edeifsitas\n", ":2: "},
	} {
		path := filepath.Join(t.TempDir(), "h.edn")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, command := range []string{"check", "lwt", "stats"} {
			code, _, stderr := runCmd(command, "--format", "edn", path)
			if code != exitBadInput || !strings.Contains(stderr, path+tc.where) {
				t.Errorf("%s: %s: exit %d, want 2 and an error at %s%s\n%s", tc.name, command, code, path, tc.where, stderr)
			}
			if r, ok := rawControl(strings.ReplaceAll(stderr, "\t", "")); ok {
				t.Errorf("%s: %s: stderr holds %U raw: %q", tc.name, command, r, stderr)
			}
		}
	}
}
