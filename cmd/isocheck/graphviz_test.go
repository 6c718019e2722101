package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPicturesWithoutGraphviz runs explain --svg and --png with a PATH
// that holds no dot, whether or not this machine has Graphviz: the
// verdict's exit status stands (a picture that cannot be drawn does not
// undo the verdict, as the README says), and stderr says that the picture
// needs Graphviz.
func TestPicturesWithoutGraphviz(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	cases := []struct {
		name    string
		args    []string
		flag    string
		install bool // the message says how to install Graphviz
	}{
		{"svg", []string{"explain", "--svg", filepath.Join(dir, "x.svg"), "../../examples/lost-update.jsonl"}, "--svg", true},
		{"png", []string{"explain", "--png", filepath.Join(dir, "x.png"), "../../examples/lost-update.jsonl"}, "--png", true},
		{"all levels", []string{"explain", "--level", "all", "--svg", filepath.Join(dir, "all.svg"), "../../examples/write-skew.jsonl"}, "--svg", true},
		{"SQL", []string{"explain", "--svg", filepath.Join(dir, "sql.svg"), "../../examples/sql-phantom-ser.jsonl"}, "--svg", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(c.args...)
			if code != exitViolated {
				t.Errorf("exit %d, want %d (the verdict's)\n%s%s", code, exitViolated, out, errs)
			}
			if !strings.Contains(strings.ToLower(out), "violated") {
				t.Errorf("stdout lacks the verdict:\n%s", out)
			}
			msg := strings.ToLower(errs)
			if !strings.Contains(errs, "isocheck: "+c.flag+" ") || !strings.Contains(msg, "graphviz's dot") || !strings.Contains(msg, "not installed") {
				t.Errorf("stderr does not say that %s needs Graphviz's dot: %q", c.flag, errs)
			}
			if c.install && !strings.Contains(errs, "apt-get install graphviz") {
				t.Errorf("stderr does not say how to install Graphviz: %q", errs)
			}
		})
	}
}

// TestPicturesWithGraphviz renders the counterexample with Graphviz's dot.
func TestPicturesWithGraphviz(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz's dot is not installed (apt-get install graphviz): the pictures are not rendered")
	}
	dir := t.TempDir()
	svg, png := filepath.Join(dir, "cex.svg"), filepath.Join(dir, "cex.png")
	if code, _, errs := runCmd("explain", "--svg", svg, "--png", png, "../../examples/lost-update.jsonl"); code != exitViolated || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("SVG: %v", err)
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("PNG: %v", err)
	}
}
