package graphviz

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const graph = "digraph { a -> b }\n"

func TestRender(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz's dot is not installed (apt-get install graphviz)")
	}
	tests := []struct {
		format string
		prefix string
	}{
		{"svg", "<?xml"},
		{"png", "\x89PNG"},
		{"dot", "digraph"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := Render(context.Background(), []byte(graph), tc.format, &b); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if !bytes.HasPrefix(b.Bytes(), []byte(tc.prefix)) {
			t.Errorf("%s: the picture begins %q, want %q", tc.format, b.Bytes()[:min(b.Len(), 20)], tc.prefix)
		}
	}
	path := filepath.Join(t.TempDir(), "g.svg")
	if err := RenderFile(context.Background(), []byte(graph), "svg", path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("RenderFile: %v", err)
	}
}

func TestRenderBadGraph(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz's dot is not installed (apt-get install graphviz)")
	}
	path := filepath.Join(t.TempDir(), "g.svg")
	err := RenderFile(context.Background(), []byte("digraph {"), "svg", path)
	if err == nil {
		t.Fatal("a graph that does not parse was rendered")
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Errorf("a failed rendering left %s", path)
	}
}

func TestRenderWithoutDot(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	path := filepath.Join(t.TempDir(), "g.svg")
	if err := RenderFile(context.Background(), []byte(graph), "svg", path); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("err = %v, want ErrNotInstalled", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s written without dot", path)
	}
}
