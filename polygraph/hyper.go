package polygraph

import (
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// ChoiceEdges are the dependencies a resolve.Choice brings with each of its
// writers: the hyper-polygraph of Chen et al. (VeriStrong), in which a
// read's writer is one more thing to choose beside the order of writes.
// The check takes exactly one Option per choice (the solver gives each
// a variable): its Edges then hold, and each of its After edges holds
// when its constraint takes the side it names.
type ChoiceEdges struct {
	Choice  resolve.Choice
	Options []ChoiceOption
	// Writers are the included transactions whose writes of the key took
	// effect (shared by the choices of one key).
	Writers []int32
	// Known says pruning left one option, whose edges it made known (its
	// After edges joined their constraints' sides).
	Known bool
}

// ChoiceOption is what reading from Writer brings.
type ChoiceOption struct {
	Writer int32
	// Edges hold whenever the read reads from Writer: the WR edge, and
	// RW edges to the writes that follow Writer's in every version order
	// (the next write of its read-modify-write chain, or every other
	// chain when Writer ends the initial chain).
	Edges []Edge
	// After hold when the read reads from Writer and Writer's chain comes
	// before another chain of the key: an RW edge to that chain's first
	// writer.
	After []GuardedEdge
}

// GuardedEdge is an edge that holds when constraint Constraint takes its
// Either side (Either true) or its Or side.
type GuardedEdge struct {
	Edge       Edge
	Constraint int32
	Either     bool
}

// choiceKeys returns the keys of the choices of included readers, and
// those choices.
func (p *Polygraph) choiceKeys(res *resolve.Resolution) (map[history.Key]bool, []resolve.Choice) {
	if len(res.Choices) == 0 {
		return nil, nil
	}
	keys := make(map[history.Key]bool)
	var cs []resolve.Choice
	for _, c := range res.Choices {
		if res.Included[c.Reader] {
			keys[c.Key] = true
			cs = append(cs, c)
		}
	}
	return keys, cs
}

// addChoiceEdges builds p.ChoiceEdges for the choices cs. keys are the
// keys of more than one chain, p.links how their chains were ordered: a
// read that may have read from the last writer of chain A takes, with
// that writer, RW edges to the first writer of each chain A has edges to,
// under the same condition (known, or a constraint's side), as A's own
// readers do; with a writer inside a chain, an RW edge to the next. The
// guarded edges count against Options.MaxConstraintEdges with the
// constraints' (TooLarge). Once m reports an error (the stage's context
// ended) it returns it, with the choices built so far.
func (p *Polygraph) addChoiceEdges(m *progress.Meter, cs []resolve.Choice, keys []keyChains, res *resolve.Resolution) error {
	h := p.History
	byKey := make(map[history.Key]*keyChains, len(keys))
	for i := range keys {
		if keys[i].choice {
			byKey[keys[i].key] = &keys[i]
		}
	}
	// links by key and first chain.
	type keyChain struct {
		key   history.Key
		chain int32
	}
	links := make(map[keyChain][]chainLink)
	for i, l := range p.links {
		if i%progress.Every == progress.Every-1 {
			if err := m.Err(); err != nil {
				return err
			}
		}
		links[keyChain{l.Key, l.A}] = append(links[keyChain{l.Key, l.A}], l)
	}
	if err := m.Err(); err != nil {
		return err
	}
	// next[(w, key)] is the writer that read key from w and wrote it: w's
	// successor in its chain.
	type wk struct {
		w   int32
		key history.Key
	}
	next := make(map[wk]int32)
	for _, rd := range res.Reads {
		if rd.RMW && !rd.Repeat {
			next[wk{rd.Writer, rd.Key}] = rd.Reader
		}
	}
	// tail[(w, key)] is the chain w ends.
	tail := make(map[wk]int32)
	for _, kc := range byKey {
		for i := range kc.chains {
			tail[wk{kc.chains[i].tail, kc.key}] = int32(i)
		}
	}
	writers := make(map[history.Key][]int32)
	for _, c := range cs {
		writers[c.Key] = nil
	}
	for t := range h.Txns {
		if !p.Included[t] || h.Txns[t].Status == history.RolledBack {
			continue
		}
		tx := &h.Txns[t]
		for i := tx.OpStart; i < tx.OpEnd; i++ {
			if !res.IsFinalWrite(i) {
				continue
			}
			if ws, ok := writers[h.Ops[i].Key]; ok {
				writers[h.Ops[i].Key] = append(ws, int32(t))
			}
		}
	}
	work := 0
	for i, c := range cs {
		// A choice costs its writers times the chains each precedes:
		// report, and look at m, once some thousands are done.
		if work >= progress.Every || i == len(cs)-1 {
			if err := m.Set(int64(i)); err != nil {
				return err
			}
			work = 0
		}
		if p.maxEdges > 0 && p.constraintEdges > p.maxEdges {
			p.TooLarge = true
			return nil
		}
		ce := ChoiceEdges{Choice: c, Options: make([]ChoiceOption, len(c.Writers)), Writers: writers[c.Key]}
		kc := byKey[c.Key]
		for j, w := range c.Writers {
			o := ChoiceOption{Writer: w, Edges: []Edge{{w, c.Reader, verdict.WR, c.Key}}}
			if u, ok := next[wk{w, c.Key}]; ok {
				if u != c.Reader {
					o.Edges = append(o.Edges, Edge{c.Reader, u, verdict.RW, c.Key})
				}
				ce.Options[j] = o
				continue
			}
			a, ok := tail[wk{w, c.Key}]
			if kc == nil || !ok {
				ce.Options[j] = o // the key's only chain, or none: nothing follows w
				continue
			}
			for _, l := range links[keyChain{c.Key, a}] {
				head := kc.chains[l.B].head
				switch {
				case head == c.Reader:
					// The reader's own writes follow what it read.
				case l.Constraint < 0:
					o.Edges = append(o.Edges, Edge{c.Reader, head, verdict.RW, c.Key})
				default:
					o.After = append(o.After, GuardedEdge{Edge: Edge{c.Reader, head, verdict.RW, c.Key}, Constraint: l.Constraint, Either: l.Either})
				}
			}
			ce.Options[j] = o
			work += len(o.Edges) + len(o.After)
			p.constraintEdges += len(o.After)
		}
		p.ChoiceEdges = append(p.ChoiceEdges, ce)
	}
	return nil
}
