package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPicturesWithNothingInstalled draws counterexamples with --svg and
// --png on a PATH that holds no program at all: the pictures are drawn
// in Go. The SVG is well-formed XML that names the anomaly; the PNG
// decodes.
func TestPicturesWithNothingInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	cases := []struct {
		name, file, level, anomaly string
	}{
		{"lost update", "lost-update.jsonl", "si", "LostUpdate"},
		{"write skew", "write-skew.jsonl", "ser", "WriteSkew"},
		{"all levels", "write-skew.jsonl", "all", "WriteSkew"},
		{"list append", "jepsen-list-append.edn", "ser", ""},
		{"SQL", "sql-phantom-ser.jsonl", "", "WriteSkew"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			svg, pic := filepath.Join(dir, "cex.svg"), filepath.Join(dir, "cex.png")
			args := []string{"explain", "--svg", svg, "--png", pic}
			if c.level != "" {
				args = append(args, "--level", c.level)
			}
			code, out, errs := runCmd(append(args, "../../examples/"+c.file)...)
			if code != exitViolated || errs != "" {
				t.Fatalf("exit %d, want %d; stderr %q\n%s", code, exitViolated, errs, out)
			}
			b, err := os.ReadFile(svg)
			if err != nil {
				t.Fatal(err)
			}
			if err := wellFormed(b); err != nil {
				t.Errorf("the SVG is not well-formed XML: %v", err)
			}
			if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte(c.anomaly)) {
				t.Errorf("the SVG does not name %s", c.anomaly)
			}
			f, err := os.Open(pic)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("the PNG does not decode: %v", err)
			}
			if r := img.Bounds(); r.Dx() < 200 || r.Dy() < 100 {
				t.Errorf("the PNG is %v, too small to show a counterexample", r)
			}
		})
	}
}

// wellFormed parses b as XML to its end.
func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestPicturesToStdout writes the SVG to standard output (--svg -): it
// holds the picture alone, and the report goes to stderr.
func TestPicturesToStdout(t *testing.T) {
	code, out, errs := runCmd("explain", "--svg", "-", "../../examples/lost-update.jsonl")
	if code != exitViolated {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(strings.TrimSpace(out), "<svg") || wellFormed([]byte(out)) != nil {
		t.Errorf("stdout is not the SVG alone: %.200q", out)
	}
	if !strings.Contains(errs, "LostUpdate") {
		t.Errorf("the report is not on stderr: %.200q", errs)
	}
	if code, _, errs := runCmd("explain", "--svg", "-", "--html", "-", "../../examples/lost-update.jsonl"); code != exitBadInput || !strings.Contains(errs, "standard output") {
		t.Errorf("--svg - --html -: exit %d, stderr %q; want 2 and why", code, errs)
	}
}
