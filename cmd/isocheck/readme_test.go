package main

import (
	"os"
	"strings"
	"testing"
)

// readmeCommand is how the README's examples run isocheck.
const readmeCommand = "$ go run ./cmd/isocheck "

// A readmeExample is a command the README shows with its output.
type readmeExample struct {
	line int // of the command in the README
	args []string
	// output is what the README shows; when partial (it ends in "..."),
	// only the start of what the command prints.
	output  []string
	partial bool
}

// readmeExamples returns the examples of the README: the commands of its
// code blocks that run isocheck from the repository's root, each followed
// by its output.
func readmeExamples(readme string) []readmeExample {
	var examples []readmeExample
	var cur *readmeExample
	inBlock := false
	for i, line := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
			cur = nil
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			cur = nil
			if rest, ok := strings.CutPrefix(line, readmeCommand); ok {
				examples = append(examples, readmeExample{line: i + 1, args: strings.Fields(rest)})
				cur = &examples[len(examples)-1]
			}
		case cur == nil || cur.partial:
		case line == "...":
			cur.partial = true
		default:
			cur.output = append(cur.output, line)
		}
	}
	return examples
}

// TestReadmeExamples: every command the README shows prints what the
// README says it prints (lines compared without their trailing blanks),
// so that the README cannot drift from the command.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(string(readme))
	if len(examples) == 0 {
		t.Fatal("the README shows no command")
	}
	t.Chdir("../..") // the README's commands run from the root
	for _, ex := range examples {
		_, stdout, stderr := runCmd(ex.args...)
		got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		for i := range got {
			got[i] = strings.TrimRight(got[i], " \t")
		}
		if ex.partial && len(got) > len(ex.output) {
			got = got[:len(ex.output)]
		}
		if strings.Join(got, "\n") != strings.Join(ex.output, "\n") {
			t.Errorf("README.md:%d: isocheck %s prints\n%s\n%swhere the README shows\n%s",
				ex.line, strings.Join(ex.args, " "), strings.Join(got, "\n"), stderr, strings.Join(ex.output, "\n"))
		}
	}
}

// TestReadmeExamplesFound: the README's commands are found, with their
// output, and only those that run isocheck from the root.
func TestReadmeExamplesFound(t *testing.T) {
	readme := "text\n```\n$ go run ./cmd/isocheck check a\nA\n\nB\n```\n" +
		"```\n$ isocheck run --db X\n...\nC\n```\n" +
		"```\n$ go run ./cmd/isocheck explain b\nD\n...\nE\n```\n"
	got := readmeExamples(readme)
	want := []readmeExample{
		{line: 3, args: []string{"check", "a"}, output: []string{"A", "", "B"}},
		{line: 14, args: []string{"explain", "b"}, output: []string{"D"}, partial: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.line != w.line || strings.Join(g.args, " ") != strings.Join(w.args, " ") || strings.Join(g.output, "\n") != strings.Join(w.output, "\n") || g.partial != w.partial {
			t.Errorf("example %d: got %+v, want %+v", i, g, w)
		}
	}
}
