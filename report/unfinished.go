package report

import (
	"errors"
	"io"
)

// WriteHTML writes p as one self-contained HTML document.
func (p *Page) WriteHTML(w io.Writer) error { return errors.New("report: not implemented yet") }
