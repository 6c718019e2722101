package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/internal/graphviz"
)

// runExplain is `isocheck explain`: check, then shrink a violation to a
// minimal counterexample and explain every dependency of it, in words
// or, with --dot, --svg and --png, in pictures.
func runExplain(args []string, stdout, stderr io.Writer) int {
	return runCheck(args, stdout, stderr, true)
}

// addPictureFlags defines explain's flags that draw the counterexample.
func (cf *checkFlags) addPictureFlags(fs *flag.FlagSet) {
	fs.StringVar(&cf.dotFile, "dot", "", "write the counterexample as a Graphviz DOT graph to FILE; - writes it to stdout, and the report to stderr")
	fs.StringVar(&cf.svgFile, "svg", "", "render the counterexample to an SVG FILE (needs Graphviz's dot)")
	fs.StringVar(&cf.pngFile, "png", "", "render the counterexample to a PNG FILE (needs Graphviz's dot)")
}

// writePictures writes the pictures asked for of the counterexample
// whose DOT graph writeDOT writes: the graph itself (--dot), and the
// graph drawn by Graphviz (--svg, --png). A failure is reported on
// stderr but does not change the exit status: the verdict stands.
func (cf *checkFlags) writePictures(writeDOT func(io.Writer) error, stderr io.Writer) {
	if cf.dotFile != "" {
		if err := writeFile(cf.dotFile, cf.fileOut, writeDOT); err != nil {
			fmt.Fprintf(stderr, "isocheck: --dot: %v\n", err)
		}
	}
	for _, r := range []struct{ file, format string }{{cf.svgFile, "svg"}, {cf.pngFile, "png"}} {
		if r.file == "" {
			continue
		}
		if err := renderFile(writeDOT, r.format, r.file); err != nil {
			fmt.Fprintf(stderr, "isocheck: --%s %s: %v\n", r.format, r.file, err)
		}
	}
}

// renderFile draws the graph writeDOT writes with Graphviz's dot into
// the file at path, in format.
func renderFile(writeDOT func(io.Writer) error, format, path string) error {
	var graph bytes.Buffer
	if err := writeDOT(&graph); err != nil {
		return err
	}
	return graphviz.RenderFile(context.Background(), graph.Bytes(), format, path)
}
