package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanAlias: gen, plan's old name, still works as plan does, with
// nothing printed about the name, and the general help lists plan only.
func TestPlanAlias(t *testing.T) {
	dir := t.TempDir()
	flags := []string{"--workload", "mini", "--sessions", "2", "--txns", "3", "--keys", "5"}
	outs := map[string]string{}
	for _, name := range []string{"plan", "gen"} {
		code, stdout, stderr := runCmd(append([]string{name}, flags...)...)
		if code != exitSatisfied || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, code, stderr)
		}
		outs[name] = stdout
		file := filepath.Join(dir, name+".json")
		if code, _, stderr := runCmd(append([]string{name, "-o", file}, flags...)...); code != exitSatisfied || stderr != "" {
			t.Fatalf("%s -o: exit %d, stderr %q", name, code, stderr)
		}
	}
	if outs["plan"] == "" || outs["plan"] != outs["gen"] {
		t.Errorf("plan and gen wrote different workloads:\n%s\n%s", outs["plan"], outs["gen"])
	}
	_, planHelp, _ := runCmd("help", "plan")
	for _, args := range [][]string{{"help", "gen"}, {"gen", "--help"}} {
		code, stdout, stderr := runCmd(args...)
		help := stdout + stderr
		if code != exitSatisfied || help != planHelp {
			t.Errorf("%v: exit %d, not plan's help:\n%s", args, code, help)
		}
	}
	_, general, _ := runCmd("help")
	if !strings.Contains(general, "isocheck plan ") || strings.Contains(general, "isocheck gen ") {
		t.Errorf("the general help does not list plan alone:\n%s", general)
	}
	for _, c := range commands() {
		if c.name == "gen" {
			t.Error("gen is a command of its own")
		}
	}
	if code, _, stderr := runCmd("gen", "--sessions", "0"); code != exitBadInput || !strings.Contains(stderr, "isocheck plan: ") {
		t.Errorf("gen --sessions 0: exit %d: %s", code, stderr)
	}
}
