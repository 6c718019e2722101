package interpret

import (
	"fmt"
	"strings"
)

// StepGroup is a titled list of an anomaly's dependencies, as the text
// report shows them: the cycle, each of the cycles one of which every
// order of the writes closes, each case of writers the reads could have
// had, and where the values read came from.
type StepGroup struct {
	Title string
	Steps []Step
}

// StepGroups returns the anomaly's dependencies in the groups, and the
// order, of the text report: every step of every cycle, each cycle on its
// own (a step in several is listed in each), then the other dependencies
// shown. An anomaly without a cycle (an aborted read, ...) has one group,
// "dependencies", of what its picture draws (Dependencies).
func (a *Anomaly) StepGroups() []StepGroup {
	var out []StepGroup
	switch {
	case len(a.Cases) > 0:
		for i, c := range a.Cases {
			picks := make([]string, len(c.Picks))
			for j, p := range c.Picks {
				picks[j] = p.String()
			}
			for j, cy := range c.Cycles {
				title := fmt.Sprintf("case %d: with %s, %s", i+1, strings.Join(picks, " and "), c.Name)
				if len(c.Cycles) > 1 {
					title += fmt.Sprintf(", cycle %d", j+1)
				}
				out = append(out, StepGroup{title, cy})
			}
		}
	case a.Constraint != nil && len(a.Cycles) == 2:
		for i, c := range a.Cycles {
			out = append(out, StepGroup{"if " + a.order(i) + " (neither order of the writes works)", c})
		}
	case len(a.Cycles) > 1:
		for i, c := range a.Cycles {
			out = append(out, StepGroup{fmt.Sprintf("cycle %d of %d (every order of the writes closes one)", i+1, len(a.Cycles)), c})
		}
	case len(a.Cycles) == 1:
		out = append(out, StepGroup{"the cycle", a.Cycles[0]})
	default:
		return []StepGroup{{"dependencies", a.Dependencies()}}
	}
	inCycle := map[string]bool{}
	for _, g := range out {
		for _, s := range g.Steps {
			inCycle[stepKey(s)] = true
		}
	}
	var extra []Step
	for _, s := range a.Edges {
		if !inCycle[stepKey(s)] {
			extra = append(extra, s)
		}
	}
	if len(extra) > 0 {
		out = append(out, StepGroup{"where the values read came from", extra})
	}
	return out
}
