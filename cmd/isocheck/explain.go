package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/isocheck/isocheck/draw"
)

// runExplain is `isocheck explain`: check, then shrink a violation to a
// minimal counterexample and explain every dependency of it, in words
// or, with --svg, --png, --dot and --html, in pictures.
func runExplain(args []string, stdout, stderr io.Writer) int {
	return runCheck(args, stdout, stderr, checkMode{explain: true})
}

// addPictureFlags defines explain's flags that draw the counterexample.
func (cf *checkFlags) addPictureFlags(fs *flag.FlagSet) {
	fs.StringVar(&cf.dotFile, "dot", "", "write the counterexample as a Graphviz DOT graph to FILE; - writes it to stdout, and the report to stderr")
	fs.StringVar(&cf.svgFile, "svg", "", "draw the counterexample as an SVG picture in FILE (nothing to install); - writes it to stdout")
	fs.StringVar(&cf.pngFile, "png", "", "draw the counterexample as a PNG picture in FILE (nothing to install); - writes it to stdout")
}

// writePictures writes the pictures asked for of a counterexample: its
// DOT graph, which writeDOT writes (--dot), and its drawing, g, as SVG
// (--svg) and PNG (--png). A failure is reported on stderr but does not
// change the exit status: the verdict stands.
func (cf *checkFlags) writePictures(writeDOT func(io.Writer) error, g *draw.Graph, stderr io.Writer) {
	if cf.dotFile != "" {
		if err := writeFile(cf.dotFile, cf.fileOut, writeDOT); err != nil {
			fmt.Fprintf(stderr, "isocheck: --dot: %v\n", err)
		}
	}
	for _, p := range []struct {
		flag, file string
		write      func(io.Writer) error
	}{{"svg", cf.svgFile, g.WriteSVG}, {"png", cf.pngFile, g.WritePNG}} {
		if p.file == "" {
			continue
		}
		if err := writeFile(p.file, cf.fileOut, p.write); err != nil {
			fmt.Fprintf(stderr, "isocheck: --%s: %v\n", p.flag, err)
		}
	}
}
