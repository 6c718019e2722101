package draw

import (
	"errors"
	"io"
)

// errUnfinished is returned until the writers are in.
var errUnfinished = errors.New("draw: not implemented yet")

// WriteSVG writes g as one <svg> element.
func (g *Graph) WriteSVG(w io.Writer) error { return errUnfinished }

// WritePNG writes g as a PNG image.
func (g *Graph) WritePNG(w io.Writer) error { return errUnfinished }

// WriteSVG writes t as one <svg> element.
func (t *Timeline) WriteSVG(w io.Writer) error { return errUnfinished }

// WritePNG writes t as a PNG image.
func (t *Timeline) WritePNG(w io.Writer) error { return errUnfinished }

// WriteSVG writes c as one <svg> element.
func (c *Chart) WriteSVG(w io.Writer) error { return errUnfinished }
