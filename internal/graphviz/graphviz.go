// Package graphviz draws DOT graphs with Graphviz's dot command.
package graphviz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ErrNotInstalled is returned when Graphviz's dot command is not on PATH.
var ErrNotInstalled = errors.New("graphviz's dot command is not installed (on Debian or Ubuntu: apt-get install graphviz); write --dot FILE and render it elsewhere")

// Render draws graph, a DOT graph, with dot in format ("svg", "png", or
// any other format dot knows) and writes the picture to w.
func Render(ctx context.Context, graph []byte, format string, w io.Writer) error {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return ErrNotInstalled
	}
	var errs bytes.Buffer
	cmd := exec.CommandContext(ctx, dot, "-T"+format)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(graph), w, &errs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dot -T%s: %v: %s", format, err, strings.TrimSpace(errs.String()))
	}
	return nil
}

// RenderFile draws graph as Render does into the file at path, which it
// creates only once dot has drawn the picture.
func RenderFile(ctx context.Context, graph []byte, format, path string) error {
	var pic bytes.Buffer
	if err := Render(ctx, graph, format, &pic); err != nil {
		return err
	}
	return os.WriteFile(path, pic.Bytes(), 0o666)
}
