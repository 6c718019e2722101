package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/internal/textsafe"
)

// BrokenAssertion is the name of what an exploration finds: a history
// the level allows in which the program's assertion fails. It is no
// anomaly of a level, so the page's Anomaly for it has no Level.
const BrokenAssertion = "broken assertion"

// FromExplore returns the first history of an exploration that breaks an
// assertion (res.First) as a page shows it: a picture with one lane per
// session (process), its transactions with their reads and writes (the
// reads of the transactions that broke an assertion marked, the
// assertion under them), a WR edge from the writer of each value read
// and SO edges along each session; Detail is the assertions broken and
// the history in the native format, as isocheck explore prints them
// (explore.History.WriteBroken). Count is the number of histories that
// break an assertion (More: at least that many, when the exploration
// stopped early). An exploration without such a history is an error.
func FromExplore(res *explore.Result) (Anomaly, error) {
	h := res.First
	if h == nil {
		return Anomaly{}, errors.New("report: no history of the exploration breaks an assertion")
	}
	var detail strings.Builder
	if err := h.WriteBroken(&detail); err != nil {
		return Anomaly{}, err
	}
	var failures []string
	for _, f := range h.Failures() {
		failures = append(failures, textsafe.Escape(f))
	}
	a := Anomaly{
		Name:        BrokenAssertion,
		Description: fmt.Sprintf("the program's transactions, run under %v, can produce a history in which an assertion of the program fails", res.Level),
		Summary:     fmt.Sprintf("%v allows this history, in which %s", res.Level, strings.Join(failures, "; ")),
		Count:       res.Failed,
		More:        !res.Complete,
		Detail:      detail.String(),
		Shown:       "The whole history, as the program produced it under the level; the transaction whose assertion broke is highlighted.",
	}
	g := &draw.Graph{
		Title:   fmt.Sprintf("%v allows a history that breaks an assertion", res.Level),
		Caption: failures,
	}
	names := txnNames(h)
	lanes := map[int]int{}
	fromInit := map[string]bool{}
	for i := range h.Txns {
		t := &h.Txns[i]
		l, ok := lanes[t.ID.Session]
		if !ok {
			l = len(g.Lanes)
			lanes[t.ID.Session] = l
			g.Lanes = append(g.Lanes, draw.Lane{Name: "session " + textsafe.Escape(sessionName(h, t.ID))})
		}
		n := exploreNode(t, names[t.ID], int64(i))
		g.Lanes[l].Nodes = append(g.Lanes[l].Nodes, n)
		a.Txns = append(a.Txns, Txn{
			Name:     n.ID,
			Session:  textsafe.Escape(sessionName(h, t.ID)),
			Position: t.ID.Index + 1,
			Status:   t.Status.String(),
			Where:    t.ID.String(),
			Ops:      n.Lines,
		})
		seen := map[string]bool{}
		for _, e := range t.Events {
			if e.Kind != explore.Read || e.Internal || seen[e.From.String()+"\x00"+e.Key] {
				continue
			}
			seen[e.From.String()+"\x00"+e.Key] = true
			if e.From == explore.Init {
				fromInit[e.Key] = true
			}
			from, ok := names[e.From]
			if !ok {
				from = e.From.String()
			}
			reason := fmt.Sprintf("%s read %s=%d written by %s", names[t.ID], e.Key, e.Value, from)
			if e.From == explore.Init {
				reason = fmt.Sprintf("%s read the initial %s=%d", names[t.ID], e.Key, e.Value)
			}
			a.Edges = append(a.Edges, Edge{From: textsafe.Escape(from), To: textsafe.Escape(names[t.ID]), Kind: draw.WR, Key: textsafe.Escape(e.Key), Reason: textsafe.Escape(reason)})
		}
	}
	for i := range g.Lanes {
		nodes := g.Lanes[i].Nodes
		for j := 1; j < len(nodes); j++ {
			a.Edges = append(a.Edges, Edge{From: nodes[j-1].ID, To: nodes[j].ID, Kind: draw.SO,
				Reason: fmt.Sprintf("%s precedes %s in its session", nodes[j-1].ID, nodes[j].ID)})
		}
	}
	if len(fromInit) > 0 {
		init := draw.Node{ID: names[explore.Init], Title: names[explore.Init], Sub: "the initial state", Order: -1}
		keys := make([]string, 0, len(fromInit))
		for k := range fromInit {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			init.Lines = append(init.Lines, draw.Plain(textsafe.Escape(fmt.Sprintf("%s = %d", k, h.Init[k]))))
		}
		g.Lanes = append([]draw.Lane{{Name: "initial state", Nodes: []draw.Node{init}}}, g.Lanes...)
	}
	g.Edges = drawnEdges(a.Edges)
	attachReads(g)
	a.Graph = g
	return a, nil
}

// attachReads attaches each WR arrow of g to the operations it is about,
// those of its first key: the last write of the key in its source (the
// key's line in the initial state's box) and the first read of it in its
// target.
func attachReads(g *draw.Graph) {
	lines := map[string][]draw.Line{}
	for _, l := range g.Lanes {
		for _, n := range l.Nodes {
			lines[n.ID] = n.Lines
		}
	}
	find := func(ls []draw.Line, prefix string, last bool) int {
		found := 0
		for i, l := range ls {
			if len(l) > 0 && strings.HasPrefix(l[0].Text, prefix) {
				found = i + 1
				if !last {
					break
				}
			}
		}
		return found
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		if e.Kind != draw.WR {
			continue
		}
		key, _, _ := strings.Cut(strings.TrimPrefix(e.Label, draw.WR+" "), ", ")
		if e.FromLine = find(lines[e.From], "w("+key+",", true); e.FromLine == 0 {
			e.FromLine = find(lines[e.From], key+" = ", false)
		}
		e.ToLine = find(lines[e.To], "r("+key+")=", false)
	}
}

// drawnEdges returns the arrows of edges: one for the edges of a kind
// between two transactions, labelled with their keys, so that a
// transaction's many reads of the initial state make one arrow.
func drawnEdges(edges []Edge) []draw.Edge {
	var out []draw.Edge
	at := map[[3]string]int{}
	for _, e := range edges {
		k := [3]string{e.From, e.To, e.Kind}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, draw.Edge{From: e.From, To: e.To, Kind: e.Kind, Label: e.Kind, Why: e.Reason})
			i = len(out) - 1
			if e.Key != "" {
				out[i].Label += " " + e.Key
			}
			continue
		}
		out[i].Label += ", " + e.Key
		out[i].Why += "; " + e.Reason
	}
	return out
}

// exploreNode returns the node of transaction t, named name and placed
// at order: its reads and writes, those of a transaction that broke an
// assertion marked, and the assertions it broke.
func exploreNode(t *explore.TxnLog, name string, order int64) draw.Node {
	n := draw.Node{ID: textsafe.Escape(name), Title: textsafe.Escape(name), Order: order}
	n.Sub = fmt.Sprintf("#%d · %s", t.ID.Index+1, t.ID)
	if t.Name != "" && t.Name != name {
		n.Sub += " · " + textsafe.Escape(t.Name)
	}
	failed := len(t.Failures) > 0
	for _, e := range t.Events {
		var text string
		switch e.Kind {
		case explore.Read:
			text = fmt.Sprintf("r(%s)=%d", e.Key, e.Value)
			if e.Internal {
				text += " (its own write)"
			}
		case explore.Write:
			text = fmt.Sprintf("w(%s,%d)", e.Key, e.Value)
		default:
			continue
		}
		n.Lines = append(n.Lines, draw.Line{{Text: textsafe.Escape(text), Mark: failed && e.Kind == explore.Read}})
	}
	for _, f := range t.Failures {
		n.Lines = append(n.Lines, draw.Line{{Text: "failed: " + textsafe.Escape(f), Mark: true}})
	}
	if t.Status != explore.Committed {
		n.Status = t.Status.String()
	}
	return n
}

// txnNames names h's transactions as its key-value history does
// (explore.History.KV): by their names where those are unique, else by
// their places and names; the initial state is "init".
func txnNames(h *explore.History) map[explore.TxnID]string {
	count := map[string]int{}
	for _, t := range h.Txns {
		count[t.Name]++
	}
	names := map[explore.TxnID]string{explore.Init: explore.Init.String()}
	for _, t := range h.Txns {
		name := t.Name
		if count[name] > 1 || name == "" || name == explore.Init.String() {
			name = t.ID.String() + ":" + t.Name
		}
		names[t.ID] = name
	}
	return names
}

// sessionName returns the name of the session of id.
func sessionName(h *explore.History, id explore.TxnID) string {
	if id.Session >= 0 && id.Session < len(h.Sessions) {
		return h.Sessions[id.Session]
	}
	return fmt.Sprint(id.Session)
}
