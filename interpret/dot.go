package interpret

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// dotStyle is the Graphviz style of each edge kind: colours match the
// terminal's; session order is bold grey, real time dotted.
var dotStyle = map[string]string{
	"SO": `color="gray40", fontcolor="gray40", penwidth=2`,
	"WR": `color="darkgreen", fontcolor="darkgreen"`,
	"WW": `color="blue", fontcolor="blue"`,
	"RW": `color="red", fontcolor="red"`,
	"RT": `color="purple", fontcolor="purple", style=dotted`,
}

// WriteDOT draws the violation as a Graphviz graph: one box per
// transaction (grouped by session, with its operations), one arrow per
// dependency, coloured by kind (WR green, WW blue, RW red, SO bold grey,
// RT dotted purple), inferred ones dashed, and the anomaly in the title.
func (r *Report) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph counterexample {\n")
	b.WriteString("  graph [fontname=\"Helvetica\", labelloc=t, fontsize=16, rankdir=TB, nodesep=0.6, ranksep=0.7];\n")
	b.WriteString("  node [shape=box, style=\"rounded\", fontname=\"Helvetica\", fontsize=11];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=10];\n")
	a := r.Anomaly
	if a == nil {
		status := "no verdict"
		if r.Satisfied != nil && *r.Satisfied {
			status = "satisfied"
		}
		fmt.Fprintf(&b, "  label=%s;\n}\n", dotQuote(r.Level+": "+status))
		_, err := io.WriteString(w, b.String())
		return err
	}
	title := fmt.Sprintf("%s violated: %s", r.Level, a.Name)
	if a.Class != "" && a.Class != a.Name {
		title += " (" + a.Class + ")"
	}
	fmt.Fprintf(&b, "  label=%s;\n", dotLines(title, wrapPlain(a.Summary, 90)))

	// Transactions, grouped by session.
	var sessions []ID
	bySession := map[ID][]TxnInfo{}
	for _, t := range a.Txns {
		if _, ok := bySession[t.Session]; !ok {
			sessions = append(sessions, t.Session)
		}
		bySession[t.Session] = append(bySession[t.Session], t)
	}
	named := map[string]bool{}
	for i, s := range sessions {
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s; style=dashed; color=gray70; fontsize=11;\n", i, dotQuote("session "+string(s)))
		for _, t := range bySession[s] {
			named[t.Name] = true
			lines := []string{fmt.Sprintf("#%d in session, %s", t.Position, filepath.Base(t.Where))}
			lines = append(lines, wrapPlain(t.opsText(), 40)...)
			if t.OmittedOps > 0 {
				lines = append(lines, fmt.Sprintf("(+%d more ops)", t.OmittedOps))
			}
			if t.Status != "committed" {
				lines = append(lines, t.Status)
			}
			attrs := ""
			if t.Status != "committed" {
				attrs = `, color="orange"`
			}
			fmt.Fprintf(&b, "    %s [label=%s%s];\n", dotQuote(t.Name), dotLines(t.Name, lines), attrs)
		}
		b.WriteString("  }\n")
	}
	for _, s := range a.Edges {
		for _, n := range []string{s.From, s.To} {
			if !named[n] {
				named[n] = true
				fmt.Fprintf(&b, "  %s [label=%s, style=\"rounded,dashed\"];\n", dotQuote(n), dotQuote(n))
			}
		}
		label := s.Kind
		if s.Key != "" {
			label += " " + string(s.Key)
		}
		style := dotStyle[s.Kind]
		if s.Inferred {
			style += ", style=dashed"
		}
		fmt.Fprintf(&b, "  %s -> %s [label=%s, tooltip=%s, %s];\n", dotQuote(s.From), dotQuote(s.To), dotQuote(label), dotQuote(s.Reason), style)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ErrNoGraphviz is returned by Render when Graphviz's dot is not installed.
var ErrNoGraphviz = errors.New("graphviz's dot command is not installed (on Debian or Ubuntu: apt-get install graphviz); write --dot FILE and render it elsewhere")

// Render draws the report with Graphviz's dot into the named file, in
// format "svg" or "png".
func (r *Report) Render(path, format string) error {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return ErrNoGraphviz
	}
	var in bytes.Buffer
	if err := r.WriteDOT(&in); err != nil {
		return err
	}
	cmd := exec.Command(dot, "-T"+format, "-o", path)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dot -T%s: %v: %s", format, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// dotLines quotes a title and lines as a centred multi-line label.
func dotLines(title string, lines []string) string {
	parts := append([]string{title}, lines...)
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	for i := range parts {
		parts[i] = r.Replace(parts[i])
	}
	return `"` + strings.Join(parts, `\n`) + `"`
}

func wrapPlain(text string, width int) []string {
	if text == "" {
		return nil
	}
	return strings.Split(wrap(text, width, ""), "\n")
}
