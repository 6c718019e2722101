package interpret

import (
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/check"
	"github.com/isocheck/isocheck/internal/textsafe"
	"github.com/isocheck/isocheck/verdict"
)

// ChoiceInfo is a read whose value several transactions wrote, so that
// it may have read from any of them.
type ChoiceInfo struct {
	// Reader names the reading transaction.
	Reader string     `json:"reader"`
	Key    verdict.ID `json:"key"`
	Value  Value      `json:"value"`
	// Writers name the transactions it may have read from ("init" for
	// the initial state), in input order.
	Writers []string `json:"writers"`
}

// CaseInfo is one choice of writers for some reads and the violation it
// leads to, whatever the other reads read from.
type CaseInfo struct {
	Picks []PickInfo `json:"picks"`
	// Name, Summary and Cycles explain the violation, as in Anomaly.
	Name    verdict.Anomaly `json:"name"`
	Summary string          `json:"summary"`
	Cycles  [][]Step        `json:"cycles,omitempty"`
}

// PickInfo says that Reader's read of Key=Value read from Writer.
type PickInfo struct {
	Reader string     `json:"reader"`
	Key    verdict.ID `json:"key"`
	Value  Value      `json:"value"`
	Writer string     `json:"writer"`
}

// String writes the pick as the text reports do: T7 reading x=1 from T2.
func (p PickInfo) String() string {
	from := p.Writer
	if from == "init" {
		from = "the initial state"
	}
	return fmt.Sprintf("%s reading %s=%s from %s", p.Reader, p.Key, p.Value, from)
}

// String writes the choice as the text reports do.
func (c ChoiceInfo) String() string {
	ws := make([]string, len(c.Writers))
	for i, w := range c.Writers {
		ws[i] = w
		if w == "init" {
			ws[i] = "the initial state"
		}
	}
	or := ws[0]
	if n := len(ws); n > 1 {
		or = strings.Join(ws[:n-1], ", ") + " or " + ws[n-1]
	}
	return fmt.Sprintf("%s read %s=%s; it could have read from %s", c.Reader, c.Key, c.Value, or)
}

// choiceTxns returns the transactions the cases of res name: readers,
// candidate writers and the transactions of each case's evidence.
func choiceTxns(res *check.Result) []int32 {
	var out []int32
	for _, c := range res.Choices {
		out = append(out, c.Reader)
		out = append(out, c.Writers...)
	}
	for _, c := range res.Cases {
		ts, _ := evidence(c.Result)
		out = append(out, ts...)
	}
	n := int32(len(res.Polygraph.History.Txns))
	return slices.DeleteFunc(out, func(t int32) bool { return t < 0 || t >= n })
}

// explainCases fills in an's Choices and Cases from res, naming
// transactions with d, and adds the transactions they show to txns.
func explainCases(d *describer, an *Anomaly, res *check.Result, txns map[int32]bool) {
	if len(res.Cases) == 0 {
		return
	}
	h := d.h
	name := func(t int32) string {
		if !d.p.IsTxn(t) {
			return "init"
		}
		txns[t] = true
		return d.name(t)
	}
	for _, c := range res.Choices {
		ci := ChoiceInfo{Reader: name(c.Reader), Key: verdict.ID(h.FormatKey(c.Key)), Value: valueOf(h, c.Value)}
		for _, w := range c.Writers {
			ci.Writers = append(ci.Writers, name(w))
		}
		an.Choices = append(an.Choices, ci)
	}
	for _, c := range res.Cases {
		var ci CaseInfo
		for _, p := range c.Picks {
			op := h.Ops[p.Op]
			ci.Picks = append(ci.Picks, PickInfo{Reader: name(readerOf(h, p.Op)), Key: verdict.ID(h.FormatKey(op.Key)), Value: valueOf(h, op.Value), Writer: name(p.Writer)})
		}
		sub := Explain(c.Result).Anomaly
		ci.Name, ci.Summary, ci.Cycles = sub.Name, sub.Summary, sub.Cycles
		for _, t := range sub.Txns {
			txns[int32(t.Index)] = true
		}
		an.Cases = append(an.Cases, ci)
	}
	if len(an.Choices) == 1 {
		an.Summary = fmt.Sprintf("%s, and every choice of writer closes a cycle", an.Choices[0])
	} else {
		an.Summary = fmt.Sprintf("%d reads could have read from several writers each, and every choice of their writers closes a cycle", len(an.Choices))
	}
}

// writeCases writes the choices of writers and their cases.
func (a *Anomaly) writeCases(b *strings.Builder, st styler, indent string) {
	if len(a.Cases) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", st.with(bold, "Reads that could have read from several writers"))
	for _, c := range a.Choices {
		fmt.Fprintf(b, "%s%s\n", indent, c)
	}
	fmt.Fprintf(b, "\n%s\n", st.with(bold, "Every choice of their writers fails"))
	for _, c := range a.Cases {
		picks := make([]string, len(c.Picks))
		for i, p := range c.Picks {
			picks[i] = p.String()
		}
		fmt.Fprintf(b, "%swith %s: %s\n", indent, strings.Join(picks, " and "), st.with(bold, c.Name.String()))
		fmt.Fprintf(b, "%s  %s\n", indent, wrap(c.Summary, 74, indent+"  "))
		for i, cy := range c.Cycles {
			if len(c.Cycles) > 1 {
				fmt.Fprintf(b, "%s  cycle %d:\n", indent, i+1)
			}
			writeSteps(b, cy, st, indent+"    ")
		}
	}
}

// escapeCases escapes the names, keys and values of choices and cases
// for a terminal.
func escapeCases(choices []ChoiceInfo, cases []CaseInfo) ([]ChoiceInfo, []CaseInfo) {
	if choices != nil {
		choices = slices.Clone(choices)
		for i := range choices {
			c := &choices[i]
			c.Reader, c.Key = textsafe.Escape(c.Reader), escapeID(c.Key)
			c.Writers = slices.Clone(c.Writers)
			for j := range c.Writers {
				c.Writers[j] = textsafe.Escape(c.Writers[j])
			}
		}
	}
	if cases != nil {
		cases = slices.Clone(cases)
		for i := range cases {
			c := &cases[i]
			c.Picks = slices.Clone(c.Picks)
			for j := range c.Picks {
				p := &c.Picks[j]
				p.Reader, p.Key, p.Writer = textsafe.Escape(p.Reader), escapeID(p.Key), textsafe.Escape(p.Writer)
			}
			cycles := make([][]Step, len(c.Cycles))
			for j, cy := range c.Cycles {
				cycles[j] = escapeSteps(cy)
			}
			c.Cycles = cycles
			c.Summary = textsafe.Escape(c.Summary)
		}
	}
	return choices, cases
}
