package interpret

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/verdict"
)

// initLane names the lane of the initial state in a picture.
const initLane = "initial state"

// Graph returns the counterexample of the report's anomaly as a picture
// (nil when the report has none), with what WriteDOT draws: the anomaly
// and what happened in the title and caption; one lane per session, in
// the order of the sessions' first transactions, with the session's
// transactions along it in real-time order when every transaction has a
// start time, else in input order; each transaction with its session
// position, input position, operations (the values that the
// dependencies rest on marked) and status when it did not commit; the
// initial state in a lane of its own on top when a dependency starts
// there; and every dependency, once, justified, dashed when it holds only
// under one order of the writes. The notes spell those orders out.
//
// A non-cycle anomaly (an aborted or intermediate read, ...) shows the
// reads and the writes they read, as WR dependencies, or, when the
// transactions shown have no dependency between them (a thin-air read),
// marks the reads of values none of them wrote and says so in the notes.
// One of lists too large to draw whole (an incompatible order through
// lists of hundreds of appends) draws the last reads of each key and the
// appends past the prefix they share, and says what it left out.
// The input's control characters are escaped, as in WriteText.
func (r *Report) Graph() *draw.Graph {
	if r.Anomaly == nil {
		return nil
	}
	r = r.escaped()
	a := r.Anomaly
	title := r.pictureTitle()
	g := &draw.Graph{Title: title, Caption: wrapPlain(a.Summary, 100)}

	steps := a.Dependencies()
	drawn := ends(steps) // the transactions the picture draws
	marks := newOpMarks(a)
	if len(a.Cycles) == 0 && len(a.Cases) == 0 && tooLargeToDraw(steps) {
		if f := a.focusedReads(); f != nil {
			steps = f.steps
			g.Notes = append(g.Notes, f.notes...)
			drawn = ends(steps)
			for _, r := range f.reads {
				drawn[a.Txns[r.txn].Name] = true
				for e := r.from; e < len(a.Txns[r.txn].Ops[r.op].Value.List()); e++ {
					marks.mark(a.Txns[r.txn].Name, r.op, e)
				}
			}
		}
	}
	ops := make([][2]int, len(steps)) // the operations each step concerns
	for i, s := range steps {
		ops[i][0], ops[i][1] = marks.step(s)
	}
	if len(a.Cycles) == 0 && (len(steps) == 0 || a.Shrunk()) {
		// The values read that no transaction shown wrote matter too (a
		// thin-air read), where every operation shown matters.
		marks.unwritten()
	}
	if len(drawn) == 0 {
		g.Notes = append(g.Notes, "no dependency joins these transactions: the marked reads returned values none of them wrote ("+a.Description+")")
	} else if n := a.unjoined(drawn); n > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%d more %s of the counterexample, joined to these by no dependency drawn, %s left out of the picture: the table of transactions shows %s", n, pick(n, "transaction", "transactions"), pick(n, "is", "are"), pick(n, "it", "them")))
	}
	g.Lanes = a.lanes(marks, steps, drawn)
	orders := writeOrders(a)
	cases := a.caseSteps()
	cycles := a.cycleSteps()
	inCycle := a.inCycle()
	if len(inCycle) > 0 {
		// The cycle first: what the picture shows beside it (where the
		// values read came from) is faded.
		ends := map[string]bool{}
		for _, s := range steps {
			if inCycle[stepKey(s)] {
				ends[s.From], ends[s.To] = true, true
			}
		}
		for l := range g.Lanes {
			for n := range g.Lanes[l].Nodes {
				g.Lanes[l].Nodes[n].Context = !ends[g.Lanes[l].Nodes[n].ID]
			}
		}
	}
	for i, s := range steps {
		label := s.Kind
		if s.Key != "" {
			label += " " + string(s.Key)
		}
		if o := orders[stepKey(s)]; len(o) > 0 && s.Assumed {
			label += " (" + strings.TrimPrefix(orderNames(o), "if ") + ")"
		}
		if cs := cycles[stepKey(s)]; len(cs) > 0 {
			label += " (" + numbered("cycle", cs) + ")"
		}
		dashed := s.Assumed
		if cs := cases[stepKey(s)]; len(cs) > 0 {
			label += " (" + caseNames(cs) + ")"
			dashed = true
		}
		why := s.Reason
		if s.Because != "" {
			why += "; " + s.Because
		}
		e := draw.Edge{From: s.From, To: s.To, Kind: s.Kind, Label: label, Dashed: dashed, Why: why,
			FromLine: ops[i][0] + 1, ToLine: ops[i][1] + 1, Context: len(inCycle) > 0 && !inCycle[stepKey(s)]}
		if s.From == "init" {
			e.FromLine = initLine(g.Lanes, s.Key)
		}
		g.Edges = append(g.Edges, e)
	}
	g.Notes = append(g.Notes, a.caseNotes()...)
	g.Notes = append(g.Notes, a.orderNotes(orders)...)
	g.Notes = append(g.Notes, a.Notes...)
	return g
}

// Dependencies returns the dependencies a picture of the anomaly draws,
// once each: its Edges, then those of its Cycles that Edges lacks, and,
// for an anomaly without a cycle (an aborted or intermediate read, ...),
// the reads of its transactions from the writes of others of them (see
// readSteps).
func (a *Anomaly) Dependencies() []Step {
	var out []Step
	seen := map[string]bool{}
	add := func(s Step) {
		if k := stepKey(s); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	for _, s := range a.Edges {
		add(s)
	}
	for _, c := range a.Cycles {
		for _, s := range c {
			add(s)
		}
	}
	for _, c := range a.Cases {
		for _, cy := range c.Cycles {
			for _, s := range cy {
				add(s)
			}
		}
	}
	if len(a.Cycles) == 0 && len(a.Cases) == 0 {
		out = append(out, a.readSteps(out, nil)...)
	}
	return out
}

// caseSteps returns, by stepKey, the cases (from 1) whose cycles hold
// each step that not every case's does: the picture dashes those and
// names their cases, which the notes spell out.
func (a *Anomaly) caseSteps() map[string][]int {
	groups := make([][][]Step, len(a.Cases))
	for i, c := range a.Cases {
		groups[i] = c.Cycles
	}
	return partialSteps(groups)
}

// partialSteps returns, by stepKey, the groups of cycles (numbered from
// 1) that hold each step not every group holds.
func partialSteps(groups [][][]Step) map[string][]int {
	if len(groups) == 0 {
		return nil
	}
	in := map[string][]int{}
	for i, g := range groups {
		for _, cy := range g {
			for _, s := range cy {
				if k := stepKey(s); !slices.Contains(in[k], i+1) {
					in[k] = append(in[k], i+1)
				}
			}
		}
	}
	for k, gs := range in {
		if len(gs) == len(groups) {
			delete(in, k)
		}
	}
	return in
}

// caseNotes spells out the cases of the picture.
func (a *Anomaly) caseNotes() []string {
	var notes []string
	for i, c := range a.Cases {
		picks := make([]string, len(c.Picks))
		for j, p := range c.Picks {
			picks[j] = p.String()
		}
		notes = append(notes, fmt.Sprintf("case %d: with %s, %s", i+1, strings.Join(picks, " and "), c.Name))
	}
	return notes
}

// readSteps returns the WR dependencies of the reads of the anomaly's
// transactions from the writes of others of them that steps lacks: for a
// non-cycle anomaly, whose report keeps no dependency, these are what
// the picture shows. A read of a list depends on the writer of each of
// its elements. A non-nil keep chooses among them: the read is operation
// op of transaction reader, elem the element of its list (0 for a read
// of a value).
func (a *Anomaly) readSteps(steps []Step, keep func(reader, op, elem int, writer *TxnInfo) bool) []Step {
	seen := map[string]bool{}
	for _, s := range steps {
		seen[stepKey(s)] = true
	}
	lists := a.lists()
	var out []Step
	for ti := range a.Txns {
		reader := &a.Txns[ti]
		for oi, op := range reader.Ops {
			if op.Kind != "r" {
				continue
			}
			elems := []Value{op.Value}
			if op.Value.Kind() == KindList {
				elems = op.Value.List()
			}
			for ei, v := range elems {
				wi := a.writerIn(reader.Name, op.Key, v)
				if wi < 0 {
					continue
				}
				writer := &a.Txns[wi]
				if keep != nil && !keep(ti, oi, ei, writer) {
					continue
				}
				s := Step{From: writer.Name, To: reader.Name, Kind: "WR", Key: op.Key, FromValue: v, ToValue: v}
				switch {
				case lists:
					s.Reason = fmt.Sprintf("%s read %s=%s, holding %s's append of %s", reader.Name, keyWord(op.Key), op.Value, writer.Name, v)
				default:
					s.Reason = fmt.Sprintf("%s read %s=%s written by %s", reader.Name, keyWord(op.Key), v, writer.Name)
				}
				if writer.Status != "committed" {
					s.Reason += fmt.Sprintf(", which is %s", writer.Status)
				}
				if k := stepKey(s); !seen[k] {
					seen[k] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// writerIn returns the index of the transaction of the anomaly, other
// than the one named reader, that wrote (or appended) v to key; -1 when
// none did.
func (a *Anomaly) writerIn(reader string, key verdict.ID, v Value) int {
	for ti, t := range a.Txns {
		if t.Name == reader {
			continue
		}
		for _, o := range t.Ops {
			if isWrite(o) && o.Key == key && sameValue(o.Value, v) {
				return ti
			}
		}
	}
	return -1
}

// ends returns the transactions that steps start or end at.
func ends(steps []Step) map[string]bool {
	ends := map[string]bool{}
	for _, s := range steps {
		ends[s.From], ends[s.To] = true, true
	}
	return ends
}

// unjoined counts the anomaly's transactions the picture does not draw:
// lanes leaves them out.
func (a *Anomaly) unjoined(drawn map[string]bool) int {
	n := 0
	for _, t := range a.Txns {
		if !drawn[t.Name] {
			n++
		}
	}
	return n
}

// lanes places the anomaly's transactions drawn (all of them when drawn
// is empty), and the other ends of steps, on lanes.
func (a *Anomaly) lanes(marks opMarks, steps []Step, drawn map[string]bool) []draw.Lane {
	byStart := len(a.Txns) > 0
	for _, t := range a.Txns {
		byStart = byStart && t.Start != nil
	}
	var lanes []draw.Lane
	lane := map[verdict.ID]int{}
	first := int64(0)
	for i, t := range a.Txns {
		if len(drawn) > 0 && !drawn[t.Name] {
			continue // no arrow to draw: the table lists it
		}
		order := int64(t.Index)
		if byStart {
			order = *t.Start
		}
		if i == 0 || order < first {
			first = order
		}
		l, ok := lane[t.Session]
		if !ok {
			l = len(lanes)
			lane[t.Session] = l
			lanes = append(lanes, draw.Lane{Name: "session " + string(t.Session)})
		}
		lanes[l].Nodes = append(lanes[l].Nodes, a.node(i, order, marks))
	}
	for i := range lanes {
		slices.SortStableFunc(lanes[i].Nodes, func(x, y draw.Node) int { return cmp.Compare(x.Order, y.Order) })
	}
	// The initial state, and any other end of a dependency that is not a
	// transaction of the anomaly (none, in a report that keeps its
	// promises), get nodes of their own.
	named := map[string]bool{}
	for _, t := range a.Txns {
		named[t.Name] = true
	}
	var others []draw.Node
	for _, s := range steps {
		for _, n := range []string{s.From, s.To} {
			if named[n] {
				continue
			}
			named[n] = true
			if n == "init" {
				lanes = append([]draw.Lane{{Name: initLane, Nodes: []draw.Node{a.initNode(steps, first-1)}}}, lanes...)
				continue
			}
			others = append(others, draw.Node{ID: n, Title: n, Sub: "not among the transactions shown", Order: first})
		}
	}
	if others != nil {
		lanes = append(lanes, draw.Lane{Name: "other transactions", Nodes: others})
	}
	return lanes
}

// node returns the node of transaction i, placed at order.
func (a *Anomaly) node(i int, order int64, marks opMarks) draw.Node {
	t := &a.Txns[i]
	n := draw.Node{ID: t.Name, Title: t.Name, Order: order}
	n.Sub = "#" + strconv.Itoa(t.Position)
	if t.Where != "" {
		n.Sub += " · " + Place(t.Where)
	}
	if t.OmittedOps > 0 {
		n.Sub += fmt.Sprintf(" · +%d more ops", t.OmittedOps)
	}
	n.Lines = marks.lines(t)
	if t.Status != "committed" {
		n.Status = t.Status
	}
	return n
}

// initNode returns the node of the initial state: the values of it that
// steps read or overwrote, marked.
func (a *Anomaly) initNode(steps []Step, order int64) draw.Node {
	n := draw.Node{ID: "init", Title: "init", Sub: "the initial state", Order: order}
	seen := map[string]bool{}
	for _, s := range steps {
		if s.From != "init" || s.Key == "" || s.FromValue.IsZero() {
			continue
		}
		v := s.FromValue.String()
		if a.lists() {
			v = "[]"
		}
		line := fmt.Sprintf("%s = %s", keyWord(s.Key), v)
		if !seen[line] {
			seen[line] = true
			n.Lines = append(n.Lines, draw.Line{{Text: line, Mark: true}})
		}
	}
	return n
}

// initLine is the line (from 1) of the initial state's node in lanes
// that shows key, or 0.
func initLine(lanes []draw.Lane, key verdict.ID) int {
	if len(lanes) == 0 || len(lanes[0].Nodes) == 0 || lanes[0].Nodes[0].ID != "init" {
		return 0
	}
	prefix := keyWord(key) + " = "
	for i, l := range lanes[0].Nodes[0].Lines {
		if len(l) > 0 && strings.HasPrefix(l[0].Text, prefix) {
			return i + 1
		}
	}
	return 0
}

// caseNames names cases: "case 1", "cases 1, 2".
func caseNames(cs []int) string { return numbered("case", cs) }

// numbered names things by number: "cycle 1", "cycles 1, 2".
func numbered(what string, ns []int) string {
	if len(ns) == 1 {
		return fmt.Sprintf("%s %d", what, ns[0])
	}
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = strconv.Itoa(n)
	}
	return what + "s " + strings.Join(names, ", ")
}

// inCycle returns, by stepKey, the steps of the anomaly's cycles and of
// its cases' cycles: what its picture is about.
func (a *Anomaly) inCycle() map[string]bool {
	in := map[string]bool{}
	for _, c := range a.Cycles {
		for _, s := range c {
			in[stepKey(s)] = true
		}
	}
	for _, c := range a.Cases {
		for _, cy := range c.Cycles {
			for _, s := range cy {
				in[stepKey(s)] = true
			}
		}
	}
	return in
}

// cycleSteps returns, by stepKey, the cycles (from 1) that hold each
// step not in all of them, when the anomaly has several cycles, one of
// which every order of the writes closes: the picture numbers them as
// the text does. The two cycles of a pair of orders are named by their
// orders instead (see writeOrders).
func (a *Anomaly) cycleSteps() map[string][]int {
	if len(a.Cycles) < 2 || len(a.Cases) > 0 || a.Constraint != nil && len(a.Cycles) == 2 {
		return nil
	}
	groups := make([][][]Step, len(a.Cycles))
	for i, c := range a.Cycles {
		groups[i] = [][]Step{c}
	}
	return partialSteps(groups)
}

// writeOrders returns the orders of the writes each assumed step holds
// under, by stepKey: order i+1 is that of Cycles[i].
func writeOrders(a *Anomaly) map[string][]int {
	orders := map[string][]int{}
	for i, c := range a.Cycles {
		for _, s := range c {
			if k := stepKey(s); s.Assumed && !slices.Contains(orders[k], i+1) {
				orders[k] = append(orders[k], i+1)
			}
		}
	}
	return orders
}

// orderNotes spells out the orders of the writes that dashed edges hold
// under, as WriteDOT's legend does (every order closes a cycle).
func (a *Anomaly) orderNotes(orders map[string][]int) []string {
	if len(orders) == 0 {
		return nil
	}
	var notes []string
	for i := range a.Cycles {
		if a.Constraint != nil && len(a.Cycles) == 2 {
			notes = append(notes, fmt.Sprintf("order %d: %s", i+1, a.order(i)))
		} else {
			notes = append(notes, fmt.Sprintf("order %d: the order of the writes that cycle %d assumes", i+1, i+1))
		}
	}
	return notes
}

// Place is a transaction's place in the input (TxnInfo.Where) made short
// enough for a picture's box or a list: "line 3" of "file:3", "byte 1637"
// of "file@1637", the file's base name otherwise.
func Place(where string) string {
	if i := strings.LastIndexByte(where, '@'); i >= 0 && isDigits(where[i+1:]) {
		return "byte " + where[i+1:]
	}
	if i := strings.LastIndexByte(where, ':'); i >= 0 && isDigits(where[i+1:]) {
		return "line " + where[i+1:]
	}
	return filepath.Base(where)
}

// pictureTitle is the title of the report's pictures: the level, the
// anomaly, and the weaker level whose violation it is, if any.
func (r *Report) pictureTitle() string {
	a := r.Anomaly
	title := fmt.Sprintf("%s violated: %s", r.Level, a.Name)
	if a.Class != "" && a.Class != a.Name.String() {
		title += " (" + a.Class + ")"
	}
	if r.ImpliedBy != "" {
		title += ", as " + r.ImpliedBy
	}
	return title
}

// pick is one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
