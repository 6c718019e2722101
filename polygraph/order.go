package polygraph

import (
	"slices"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/progress"
)

// maxClockEntries bounds the memory of the reachability clocks that
// orderChains uses (int32 entries); past it, Build falls back to all pairs.
const maxClockEntries = 1 << 28

// orderChains orders the write chains of each key with as few constraints
// as reachability allows, instead of one per pair of chains (which is
// quadratic in the writers of a key: 55k writers of one hot key make 1.5e9
// pairs).
//
// Let chains be grouped by the session of their first transaction, each
// group sorted by session position. Two facts make most pairs unnecessary:
//
//   - If A's last transaction reaches B's first (in the level's graph of
//     known edges), B before A would close a cycle, so A precedes B; and
//     then A precedes every later chain of B's group too, since session
//     order puts B's first transaction before theirs.
//   - Consecutive chains of one group are ordered by session order.
//
// So for each chain A and group G, only the first chain of G that A's tail
// reaches gets A's edges (the others follow from the WW edges between
// consecutive chains of G), and not even it when the first chain A reaches
// in another group precedes it (its edges, and those after it, imply A's);
// the chains of G before it get a constraint with A, scanning backwards
// until one whose tail reaches A's head (it and all before it precede A). Every pair is thereby ordered by a known edge, a
// constraint, or a path of them, in every acyclic choice. The property test
// against the reference checker and the all-pairs mode (Options.AllPairs)
// keep this honest.
//
// It returns false, having added nothing, when the clocks would take too
// much memory. It counts the keys done on m, and returns m's error once
// there is one.
func (p *Polygraph) orderChains(m *progress.Meter, keys []keyChains) (bool, error) {
	if len(keys) == 0 {
		return true, nil
	}
	lw := p.Lowering()
	if digraph.ClockEntries(lw.Nodes(), len(p.Chains)) > maxClockEntries {
		return false, nil
	}
	g := &digraph.Graph{}
	// The clocks and the searches of paths need no edge ids.
	g.ResetChunks(lw.Nodes(), lw.Chunks(p.Known), false)
	if err := m.Err(); err != nil {
		return true, err
	}
	order, ok := g.TopoOrder()
	if !ok {
		// The known edges already form a cycle, which pruning reports.
		return true, nil
	}
	if err := m.Err(); err != nil {
		return true, err
	}
	clocks := &digraph.Clocks{}
	if err := clocks.ResetMeter(m, g, order, p.Chains); err != nil {
		return true, err
	}
	var sc orderScratch
	defer func() { p.Known = sc.appendKnown(p.Known) }()
	work := keyWork{m: m}
	for _, kc := range keys {
		if err := work.done(len(kc.chains)); err != nil {
			return true, err
		}
		if err := p.orderKey(m, kc, lw, clocks, &sc); err != nil || p.TooLarge {
			return true, err
		}
	}
	return true, nil
}

// sideCloses reports whether putting chain a before chain b closes a cycle
// with the known edges the clocks were computed from.
func sideCloses(lw Lowering, clocks *digraph.Clocks, key history.Key, a, b *chain) bool {
	if bad, _ := lw.ClosesCycle(clocks, Edge{a.tail, b.head, WW, key}); bad {
		return true
	}
	for _, r := range a.readers {
		if bad, _ := lw.ClosesCycle(clocks, Edge{r, b.head, RW, key}); bad {
			return true
		}
	}
	return false
}

// group is the chains of one key whose first transactions lie on one
// session (clock chain), sorted by position.
type group struct {
	session int32
	pos     []int32 // session position of each chain's head
	chain   []int32 // index into keyChains.chains
}

// orderScratch is the memory orderKey reuses from key to key.
type orderScratch struct {
	idx    []int32 // chains 1..n-1, sorted by (session, position)
	pos    []int32
	chain  []int32
	groups []group
	first  []int32
	// known collects, in blocks, the edges the keys' orders add, which
	// join p.Known at the end: appended to p.Known, or to one slice, as
	// they come, tens of millions of edges would be copied at every
	// growth (1.5 s of a 1M-transaction check).
	known [][]Edge
}

// before adds the edges of putting chain a before chain b of key.
func (sc *orderScratch) before(key history.Key, a, b *chain) {
	need := 1 + len(a.readers)
	if n := len(sc.known); n == 0 || cap(sc.known[n-1])-len(sc.known[n-1]) < need {
		size := firstBlock
		if n > 0 {
			size = min(arenaBlock, 2*cap(sc.known[n-1]))
		}
		sc.known = append(sc.known, make([]Edge, 0, max(need, size)))
	}
	last := &sc.known[len(sc.known)-1]
	*last = before(*last, key, a, b)
}

// appendKnown appends the edges sc collected to known, growing it once.
func (sc *orderScratch) appendKnown(known []Edge) []Edge {
	n := 0
	for _, b := range sc.known {
		n += len(b)
	}
	known = slices.Grow(known, n)
	for _, b := range sc.known {
		known = append(known, b...)
	}
	sc.known = nil
	return known
}

// orderKey orders the chains of one key (see orderChains). A key of many
// writers takes long, so it returns m's error once there is one.
func (p *Polygraph) orderKey(m *progress.Meter, kc keyChains, lw Lowering, clocks *digraph.Clocks, sc *orderScratch) error {
	cs := kc.chains
	sc.idx = sc.idx[:0]
	for i := 1; i < len(cs); i++ {
		if s, _ := clocks.Chain(cs[i].head); s < 0 {
			// A head on no session: order this key pair by pair.
			return p.orderAllPairs(m, []keyChains{kc})
		}
		sc.idx = append(sc.idx, int32(i))
	}
	slices.SortFunc(sc.idx, func(a, b int32) int {
		sa, pa := clocks.Chain(cs[a].head)
		sb, pb := clocks.Chain(cs[b].head)
		if sa != sb {
			return int(sa) - int(sb)
		}
		return int(pa) - int(pb)
	})
	sc.pos, sc.chain, sc.groups = sc.pos[:0], sc.chain[:0], sc.groups[:0]
	for _, i := range sc.idx {
		s, pos := clocks.Chain(cs[i].head)
		sc.pos = append(sc.pos, pos)
		sc.chain = append(sc.chain, i)
		if n := len(sc.groups); n == 0 || sc.groups[n-1].session != s {
			sc.groups = append(sc.groups, group{session: s})
		}
	}
	// Cut the flat arrays into the groups' runs.
	at := 0
	for gi := range sc.groups {
		g := &sc.groups[gi]
		end := at
		for end < len(sc.idx) {
			if s, _ := clocks.Chain(cs[sc.idx[end]].head); s != g.session {
				break
			}
			end++
		}
		g.pos, g.chain = sc.pos[at:end], sc.chain[at:end]
		at = end
		// The initial chain precedes the first of each group, and so all.
		sc.before(kc.key, &cs[0], &cs[g.chain[0]])
	}
	groups := sc.groups
	var seen map[[2]int32]bool // pairs given a constraint or decided
	if cap(sc.first) < len(groups) {
		sc.first = make([]int32, len(groups))
	}
	first := sc.first[:len(groups)] // per group, the first chain A precedes
	for a := int32(1); a < int32(len(cs)); a++ {
		if a&63 == 0 {
			if err := m.Err(); err != nil {
				return err
			}
		}
		A := &cs[a]
		for gi, g := range groups {
			earliest := clocks.Earliest(A.tail, g.session)
			j, _ := slices.BinarySearch(g.pos, earliest)
			if j < len(g.chain) && g.chain[j] == a {
				j++
			}
			first[gi] = -1
			if j < len(g.chain) {
				first[gi] = g.chain[j]
			}
			for i := j - 1; i >= 0; i-- {
				b := g.chain[i]
				if b == a {
					continue
				}
				if clocks.Reaches(cs[b].tail, A.head) {
					break
				}
				pair := [2]int32{min(a, b), max(a, b)}
				if seen[pair] {
					continue
				}
				if seen == nil {
					seen = make(map[[2]int32]bool)
				}
				seen[pair] = true
				// Decide now what pruning would decide first: a pair one
				// of whose orders closes a cycle takes the other.
				x, y := &cs[pair[0]], &cs[pair[1]]
				xyBad, yxBad := sideCloses(lw, clocks, kc.key, x, y), sideCloses(lw, clocks, kc.key, y, x)
				switch {
				case xyBad && !yxBad:
					sc.before(kc.key, y, x)
				case yxBad && !xyBad:
					sc.before(kc.key, x, y)
				default:
					p.addConstraint(p.constraint(kc.key, x, y))
					if p.TooLarge {
						return nil
					}
				}
			}
		}
		// A's edges go to the first chain it precedes in each group,
		// except where another such chain already precedes that one: the
		// edges of that one, and WW edges along a group, imply them.
		for gi, b := range first {
			if b < 0 {
				continue
			}
			implied := false
			for hi, c := range first {
				if hi != gi && c >= 0 && clocks.Reaches(cs[c].tail, cs[b].head) {
					implied = true
					break
				}
			}
			if !implied {
				sc.before(kc.key, A, &cs[b])
			}
		}
	}
	return nil
}
