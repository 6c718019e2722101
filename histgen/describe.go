package histgen

import (
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/history"
)

// Describe returns a compact human-readable form of h, for test failure
// messages: the initial value, then one line per transaction with its
// session, name, status, times and operations, then the stated version
// orders. In a list history appends are a(x)=v and reads show the whole
// list, r(x)=[1 2].
func Describe(h *history.History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "init=%s\n", h.FormatValue(h.Init))
	for t := range h.Txns {
		tx := &h.Txns[t]
		fmt.Fprintf(&b, "s%s %s %s", h.SessionName(int(tx.Session)), h.Name(t), tx.Status)
		if tx.Start != history.NoTime || tx.End != history.NoTime {
			fmt.Fprintf(&b, " [%s,%s]", formatTime(tx.Start), formatTime(tx.End))
		}
		b.WriteString(":")
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			op := h.Ops[i]
			switch {
			case !h.Lists:
				fmt.Fprintf(&b, " %s(%s)=%s", op.Kind, h.FormatKey(op.Key), h.FormatValue(op.Value))
			case op.Kind == history.Write:
				fmt.Fprintf(&b, " a(%s)=%s", h.FormatKey(op.Key), h.FormatValue(op.Value))
			default:
				fmt.Fprintf(&b, " r(%s)=%s", h.FormatKey(op.Key), formatList(h, h.ListOf(i)))
			}
		}
		b.WriteString("\n")
	}
	for _, o := range h.Orders {
		fmt.Fprintf(&b, "order %s: %s\n", h.FormatKey(o.Key), formatList(h, o.Values))
	}
	return b.String()
}

// formatList returns a list of values like [1 2 3].
func formatList(h *history.History, vals []history.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = h.FormatValue(v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func formatTime(t int64) string {
	if t == history.NoTime {
		return "?"
	}
	return fmt.Sprint(t)
}
