package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed template.html
var pageTemplate string

//go:embed style.css
var pageStyle string

// WriteHTML writes p as one self-contained HTML5 document: its only style
// is inline, it has no script, and its Content-Security-Policy lets it load
// nothing, so that it opens from disk anywhere and a hostile history cannot
// make it run or fetch anything. Every string of p is shown as text, with
// control characters and invalid UTF-8 escaped and long strings cut; long
// lists are cut too, so that the page stays under a few megabytes for any
// p. Pictures are draw's SVG, inline; one that cannot be drawn is
// replaced by a note saying why.
func (p *Page) WriteHTML(w io.Writer) error {
	t, err := template.New("page").Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("report: parsing the page template: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p.view(pageStyle)); err != nil {
		return fmt.Errorf("report: writing the page: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing the page: %w", err)
	}
	return nil
}
