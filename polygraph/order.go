package polygraph

import (
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// orderChainsIn orders the write chains of each key with as few constraints
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
// until one whose tail reaches A's head (it and all before it precede A).
// Every pair is thereby ordered by a known edge, a constraint, or a path of
// them, in every acyclic choice. The property test against the reference
// checker and the all-pairs mode (Options.AllPairs) keep this honest.
//
// Keys are independent once the clocks are computed: they are ordered on
// every core (runtime.GOMAXPROCS), in parts of consecutive keys whose
// edges and constraints join the polygraph in key order, so the polygraph
// is the same whatever the number of cores. It counts the keys done on m,
// and returns m's error once there is one.
//
// orderChainsIn cuts keys into at most parts parts (see orderParts).
func (p *Polygraph) orderChainsIn(m *progress.Meter, keys []keyChains, parts int) error {
	if len(keys) == 0 {
		return nil
	}
	lw := p.Lowering()
	g := &digraph.Graph{}
	// The clocks and the searches of paths need no edge ids.
	g.ResetChunks(lw.Nodes(), lw.Chunks(p.Known), false)
	if err := m.Err(); err != nil {
		return err
	}
	order, ok := g.TopoOrder()
	if !ok {
		// The known edges already form a cycle, which pruning reports.
		return nil
	}
	if err := m.Err(); err != nil {
		return err
	}
	clocks := &digraph.Clocks{}
	if err := clocks.ResetMeter(m, g, order, p.Chains); err != nil {
		return err
	}
	split := splitKeys(keys, parts)
	outs := make([]orderOut, len(split))
	errs := make([]error, len(split))
	run := func(i int, clocks *digraph.Clocks, sc *orderScratch) {
		out := &outs[i]
		out.maxEdges, out.readers = p.maxEdges, p.readers
		ko := keyOrderer{m: m, lw: lw, clocks: clocks, sc: sc, out: out}
		errs[i] = ko.orderKeys(split[i])
	}
	if len(split) == 1 {
		run(0, clocks, &orderScratch{})
	} else {
		var next atomic.Int32
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(split)) {
			wg.Go(func() {
				// Each worker asks its own fork of the clocks: the
				// searches behind a query have scratch of their own.
				c, sc := clocks.Fork(), &orderScratch{}
				for i := int(next.Add(1)) - 1; i < len(split); i = int(next.Add(1)) - 1 {
					if run(i, c, sc); errs[i] != nil {
						return
					}
				}
			})
		}
		wg.Wait()
	}
	// Joining copies the known edges into a larger array. The graph, its
	// clocks and the chains, together as large as those edges, are no
	// longer needed: when they are large, hand their memory back first,
	// so that the copy comes in their place rather than on top of them;
	// the join hands back the blocks it copies as it goes, and what is
	// left afterwards (the old array), so that the next stage's large
	// arrays, which need memory in one piece, do not come on top of it.
	for _, err := range errs {
		if err != nil {
			// Stopped: what was ordered is left out, rather than
			// copied after the stage should have ended.
			return err
		}
	}
	release := len(g.Out) >= releaseEdges
	if release {
		g, clocks, keys, split = nil, nil, nil, nil
		debug.FreeOSMemory()
	}
	p.join(outs, release)
	if release {
		debug.FreeOSMemory()
	}
	return nil
}

// orderParts is the number of parts orderChainsIn cuts keys into: one
// where there is too little work to share (the model checker checks
// thousands of histories of a few transactions), else a few per core, so
// that a part of slow keys holds no core up for long.
func orderParts(keys []keyChains) int {
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 {
		return 1
	}
	chains := 0
	for _, kc := range keys {
		if chains += len(kc.chains); chains >= minParallelChains {
			return 8 * procs
		}
	}
	return 1
}

// releaseEdges is the size of graph, in edges, from which orderChainsIn
// hands memory back to the operating system before and after it grows
// the known edges.
const releaseEdges = 1 << 22

// minParallelChains is the fewest chains worth ordering on several cores.
const minParallelChains = 1 << 14

// splitKeys cuts keys into at most n parts of consecutive keys with about
// as many chains each.
func splitKeys(keys []keyChains, n int) [][]keyChains {
	total := 0
	for _, kc := range keys {
		total += len(kc.chains)
	}
	parts := make([][]keyChains, 0, n)
	start, sum := 0, 0
	for i, kc := range keys {
		sum += len(kc.chains)
		if sum*n >= total*(len(parts)+1) && len(parts) < n-1 {
			parts = append(parts, keys[start:i+1])
			start = i + 1
		}
	}
	return append(parts, keys[start:])
}

// keyOrderer orders the chains of keys with one fork of the clocks,
// adding what it finds to out.
type keyOrderer struct {
	m      *progress.Meter
	lw     Lowering
	clocks *digraph.Clocks
	sc     *orderScratch
	out    *orderOut
}

// orderKeys orders the chains of each key in turn.
func (ko *keyOrderer) orderKeys(keys []keyChains) error {
	work := keyWork{m: ko.m}
	for _, kc := range keys {
		if err := work.done(len(kc.chains)); err != nil {
			return err
		}
		if err := ko.orderKey(&kc); err != nil || ko.out.tooLarge {
			return err
		}
	}
	return nil
}

// sideCloses reports whether putting chain a before chain b closes a cycle
// with the known edges the clocks were computed from.
func sideCloses(lw Lowering, clocks *digraph.Clocks, readers chainReaders, kc *keyChains, a, b int32) bool {
	head := kc.chains[b].head
	if bad, _ := lw.ClosesCycle(clocks, Edge{kc.chains[a].tail, head, verdict.WW, kc.key}); bad {
		return true
	}
	for _, r := range readers.of(kc.chains, a) {
		if bad, _ := lw.ClosesCycle(clocks, Edge{r, head, verdict.RW, kc.key}); bad {
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
}

// orderKey orders the chains of one key (see orderChainsIn). A key of many
// writers takes long, so it returns m's error once there is one.
func (ko *keyOrderer) orderKey(kc *keyChains) error {
	m, lw, clocks, sc, out := ko.m, ko.lw, ko.clocks, ko.sc, ko.out
	cs := kc.chains
	sc.idx = sc.idx[:0]
	for i := 1; i < len(cs); i++ {
		if s, _ := clocks.Chain(cs[i].head); s < 0 {
			// A head on no session: order this key pair by pair.
			return orderAllPairs(m, []keyChains{*kc}, out)
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
		out.before(kc, 0, g.chain[0])
	}
	groups := sc.groups
	var seen map[[2]int32]bool // pairs given a constraint or decided
	if cap(sc.first) < len(groups) {
		sc.first = make([]int32, len(groups))
	}
	first := sc.first[:len(groups)] // per group, the first chain A precedes
	for a := int32(1); a < int32(len(cs)); a++ {
		// Each chain may cost a question per chain of the key: look
		// often.
		if a&7 == 0 {
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
				x, y := pair[0], pair[1]
				xyBad, yxBad := sideCloses(lw, clocks, ko.out.readers, kc, x, y), sideCloses(lw, clocks, ko.out.readers, kc, y, x)
				switch {
				case xyBad && !yxBad:
					out.before(kc, y, x)
				case yxBad && !xyBad:
					out.before(kc, x, y)
				default:
					if out.constraint(kc, x, y); out.tooLarge {
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
				out.before(kc, a, b)
			}
		}
	}
	return nil
}
