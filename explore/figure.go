package explore

import (
	"fmt"
	"io"
	"strings"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/internal/textsafe"
)

// WriteBroken writes what isocheck explore prints of a history that
// breaks an assertion: the assertions it broke, one a line and indented
// ("  name: message", control characters escaped), then the history in
// the native JSONL format (format.Write of h.KV()), under the heading
// "The history (native JSONL):".
func (h *History) WriteBroken(w io.Writer) error {
	var b strings.Builder
	for _, f := range h.Failures() {
		fmt.Fprintf(&b, "  %s\n", textsafe.Escape(f))
	}
	b.WriteString("\nThe history (native JSONL):\n")
	if err := format.Write(&b, h.KV(), format.JSONL); err != nil {
		return fmt.Errorf("explore: writing the broken history: %w", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
