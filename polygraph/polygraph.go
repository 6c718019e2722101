// Package polygraph turns a history into a generalized polygraph (Huang,
// Liu, Chen, Wei, Basin, Li and Pan, "Efficient Black-box Checking of
// Snapshot Isolation in Databases" (PolySI, PVLDB 16(6), 2023), Section 3):
// the dependencies every valid version order must have (known edges) and,
// for each pair of write chains of a key whose order the history does not
// fix, an either/or constraint.
//
// It starts from a history whose reads are resolved (package resolve:
// who read from whom, and the anomalies a read alone shows), and adds the
// one anomaly that needs the reads of a key together: divergent
// read-modify-writes (a lost update).
//
// The polygraph is built for SER, SI and SSER, which share one fact used
// throughout: a transaction T that reads key x from W and then writes x must
// directly follow W in x's version order (any writer between them would be
// a lost update). Such read-modify-write links form chains; only the order
// between chains needs constraints (docs/design.md, "Generalized constraints").
package polygraph

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/hugepage"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// NoKey is the Key of edges that concern no key (SO, RT).
const NoKey history.Key = -1

// Edge is a dependency between two nodes.
type Edge struct {
	From, To int32
	Kind     verdict.EdgeKind
	Key      history.Key
}

// Constraint says that of two write chains of Key, one precedes the other
// in version order: either chain A before chain B (the Either edges) or B
// before A (the Or edges). A and B are the chains' first transactions.
type Constraint struct {
	Key    history.Key
	A, B   int32
	Either []Edge
	Or     []Edge
}

// Options select what the polygraph contains.
type Options struct {
	// Level is the level the polygraph is for (SER, SI or SSER): it
	// decides which orders of writes reachability rules out, and SSER adds
	// real-time edges between transactions with recorded times.
	Level level.Level
	// AllPairs makes a constraint for every pair of write chains of a key,
	// as Huang et al. (PVLDB 2023) do, instead of only for the pairs
	// reachability leaves open. It is for tests and measurements.
	AllPairs bool
	// MaxConstraintEdges, when positive, bounds the edges of all
	// constraints together: past it, Build stops and sets TooLarge. There
	// is no bound by default: what bounds a check is the memory its
	// caller allows (the command line's --max-memory), not a count.
	MaxConstraintEdges int
	// MaxClockBytes, when positive, bounds the memory of the
	// reachability clocks that ordering the writes needs: 4 bytes per
	// node of the lowered graph and chain (session). Past it, Build
	// returns an error wrapping progress.ErrResourceLimit that gives the
	// figures, before allocating them.
	MaxClockBytes int64
	// NoRelax, when the guess of a witness fails, orders the writes of
	// every key rather than only those its cycles ran through (see
	// Polygraph.Relaxed).
	NoRelax bool
	// ReleaseReads lets BuildResolved release the reads of the
	// resolution (resolve.Resolution.Release) once it holds them as its
	// own edges, where they are not needed to choose writers: for the one
	// owner of a resolution of tens of millions of reads, whose two copies
	// would otherwise stay in memory while it is checked.
	ReleaseReads bool
	// NoWitness skips the guess of a version order that witnesses the
	// level (see Polygraph.Witnessed), so that the constraints are built
	// and searched even for a history the guess would settle: for tests
	// and measurements of the search.
	NoWitness bool
	// graphOrder guesses the commit order from the graph of the known
	// edges even where the history lists its transactions in one (see
	// recordedOrder), for tests.
	graphOrder bool
	// parts, when positive, orders by reachability (not all pairs) in
	// that many parts of keys (see orderChainsIn), for tests of the
	// parallel construction.
	parts int
}

// Polygraph is a generalized polygraph over the transactions of a history.
// Node i < len(History.Txns) is transaction i; node T0 is the implicit
// initial transaction; nodes above it are time nodes (see TimeOf).
type Polygraph struct {
	History  *history.History
	T0       int32
	NumNodes int
	// Included marks the transactions the check considers committed:
	// the committed ones and the unknown ones some included transaction
	// read from.
	Included    []bool
	Known       []Edge
	Constraints []Constraint
	// Chains cover the nodes with paths (sessions, the time line), for
	// reachability by clocks.
	Chains [][]int32
	// Anomalies no version order can explain. When there are any, Known
	// and Constraints are incomplete and must not be checked.
	Anomalies []resolve.Anomaly
	// ChoiceEdges are, for each read that may have read from several
	// writers (resolve.Resolution.Choices), what each of them brings: the solver
	// chooses one per read, beside the sides of the constraints.
	ChoiceEdges []ChoiceEdges
	// Picks are the writers chosen for the reads whose value several
	// transactions wrote (resolve.Resolution.Choose), by read operation.
	Picks []resolve.Pick
	// Witnessed says that a version order was found under which the known
	// edges stay acyclic (a witness that the level holds): Constraints are
	// then left empty, since no search is needed.
	Witnessed bool
	// Relaxed says that the writes of only some keys were ordered (those
	// the cycles of a failed guess of a witness ran through): the others'
	// orders add no edge. A relaxation has fewer edges in every choice, so
	// a violation of it is one of the history, with true evidence; that it
	// is satisfied proves nothing, and the caller checks again without it
	// (Options.NoRelax). Where one key's writers are many and concurrent
	// (the lost updates PC allows) and the violation lies elsewhere, it
	// spares their constraints, which grow with the square of them.
	Relaxed bool
	// TooLarge says the constraints would exceed Options.MaxConstraintEdges:
	// the polygraph is incomplete and no verdict can be drawn from it.
	TooLarge bool
	timeOf   []int64 // time of node T0+1+i
	level    level.Level
	// constraintEdges counts the edges of Constraints, against maxEdges
	// (0: no bound).
	constraintEdges, maxEdges int
	// readers holds the readers of the tail of every chain of every key,
	// cut by chain.r0 and chain.r1 (see chainReaders).
	readers chainReaders
	// graphOrder is Options.graphOrder.
	graphOrder bool
	// links are the chain links of keys with a choice, while the
	// polygraph is built (see chainLink).
	links []chainLink
}

// IsTxn reports whether node u is a transaction of the history (not T0 or a
// time node).
func (p *Polygraph) IsTxn(u int32) bool { return u >= 0 && int(u) < len(p.History.Txns) }

// TimeOf returns the end time a time node stands for: every transaction
// that ended at or before it reaches the node, and the node reaches every
// transaction that started after it.
func (p *Polygraph) TimeOf(u int32) (int64, bool) {
	i := int(u) - int(p.T0) - 1
	if i < 0 || i >= len(p.timeOf) {
		return 0, false
	}
	return p.timeOf[i], true
}

// NodeName names a node for messages: the transaction's name, "init" or
// "time t".
func (p *Polygraph) NodeName(u int32) string {
	switch {
	case p.IsTxn(u):
		return p.History.Name(int(u))
	case u == p.T0:
		return "init"
	}
	t, _ := p.TimeOf(u)
	return fmt.Sprintf("time %d", t)
}

// Build constructs the polygraph of h: resolve.Resolve, then
// BuildResolved.
func Build(ctx context.Context, h *history.History, opts Options) (*Polygraph, error) {
	res, err := resolve.Resolve(ctx, h)
	if err != nil {
		return nil, err
	}
	return BuildResolved(ctx, res, opts)
}

// BuildResolved constructs the polygraph of a resolved history. It runs
// as two stages: "build polygraph" (the known edges, key by key) and
// "order writes" (the constraints, key by key). When ctx ends first, it
// returns the polygraph built so far, incomplete, with the reason
// (context.Cause).
func BuildResolved(ctx context.Context, res *resolve.Resolution, opts Options) (*Polygraph, error) {
	if res.Released() {
		return nil, resolve.ErrReleased
	}
	n := len(res.History.Txns)
	p := &Polygraph{
		History:    res.History,
		T0:         int32(n),
		NumNodes:   n + 1,
		Included:   res.Included,
		Anomalies:  slices.Clone(res.Anomalies),
		Picks:      res.Picks(),
		level:      opts.Level,
		maxEdges:   max(opts.MaxConstraintEdges, 0),
		graphOrder: opts.graphOrder,
	}
	if len(p.Anomalies) > 0 {
		return p, nil
	}
	m := progress.Start(ctx, "build polygraph", int64(p.History.NumKeys()), "keys")
	p.addSessionOrder(res)
	choiceKeys, choices := p.choiceKeys(res)
	keys, err := p.buildChains(m, res, opts.ReleaseReads && len(choices) == 0)
	if err != nil || len(p.Anomalies) > 0 {
		return p, err
	}
	if opts.Level == level.SSER {
		if err := p.addRealTime(m); err != nil {
			return p, err
		}
	}
	// The keys some read may have read from several writers of record
	// how their chains are ordered, which their choices' edges follow.
	for i := range keys {
		keys[i].choice = choiceKeys[keys[i].key]
	}
	if len(choices) == 0 && !opts.AllPairs && opts.parts == 0 && !opts.NoWitness {
		if len(p.Known) >= releaseEdges {
			// buildChains's arrays by node and by key are garbage now:
			// collected, their memory holds the guess's graph, which
			// would otherwise raise the peak by as much.
			runtime.GC()
		}
		m = progress.Start(ctx, "guess an order of writes", int64(len(keys)), "keys")
		suspects, ok, err := p.witnessOrder(m, keys)
		if err != nil || ok {
			return p, err
		}
		if !opts.NoRelax && suspects != nil {
			// Order only the writes of the keys the guess's cycles ran
			// through: a relaxation (see Relaxed).
			kept := keys[:0:0]
			for i, kc := range keys {
				if suspects[i] {
					kept = append(kept, kc)
				}
			}
			if len(kept) < len(keys) {
				keys, p.Relaxed = kept, true
			}
		}
	}
	m = progress.Start(ctx, "order writes", int64(len(keys)), "keys")
	if err := p.orderWrites(m, keys, opts); err != nil || len(choices) == 0 {
		return p, err
	}
	m = progress.Start(ctx, "choose writers", int64(len(choices)), "reads")
	err = p.addChoiceEdges(m, choices, keys, res)
	p.links = nil
	return p, err
}

// orderWrites orders the chains of keys: by reachability
// (orderChainsIn) unless every pair is cheaper or opts ask for all
// pairs.
func (p *Polygraph) orderWrites(m *progress.Meter, keys []keyChains, opts Options) error {
	if err := m.Err(); err != nil {
		return err
	}
	nodes := p.Lowering().Nodes()
	entries := digraph.ClockEntries(nodes, len(p.Chains))
	if !opts.AllPairs && (opts.parts > 0 || !fewPairs(keys, max(int64(len(p.Known)), entries))) {
		if opts.MaxClockBytes > 0 && 4*entries > opts.MaxClockBytes {
			return &ClockLimitError{Need: 4 * entries, Limit: opts.MaxClockBytes, Nodes: nodes, Chains: len(p.Chains)}
		}
		return p.orderChainsIn(m, keys, cmp.Or(opts.parts, orderParts(keys)))
	}
	out := orderOut{maxEdges: p.maxEdges, readers: p.readers}
	err := orderAllPairs(m, keys, &out)
	p.join([]orderOut{out}, false)
	return err
}

// ClockLimitError says that ordering the writes would need reachability
// clocks larger than Options.MaxClockBytes. It wraps
// progress.ErrResourceLimit: the check gives no verdict rather than
// exhaust memory.
type ClockLimitError struct {
	Need, Limit   int64 // bytes
	Nodes, Chains int
}

func (e *ClockLimitError) Error() string {
	return fmt.Sprintf("%v: ordering the writes needs reachability clocks of %s (4 bytes for each of %d nodes and %d sessions), more than the %s allowed; allow more memory",
		progress.ErrResourceLimit, formatBytes(e.Need), e.Nodes, e.Chains, formatBytes(e.Limit))
}

// Unwrap returns progress.ErrResourceLimit.
func (e *ClockLimitError) Unwrap() error { return progress.ErrResourceLimit }

// formatBytes writes n bytes in the largest unit that leaves a number of
// at least 1.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// fewPairs reports whether ordering every pair of chains of every key
// costs less than the reachability clocks orderChainsIn needs, clockCost:
// the larger of the known edges and the clocks' entries (nodes times
// chains). So it is in list histories, whose reads leave only the writers
// after each key's last read unordered, and in histories of thousands of
// sessions and few writers a key.
func fewPairs(keys []keyChains, clockCost int64) bool {
	pairs := int64(0)
	for _, kc := range keys {
		n := int64(len(kc.chains))
		if pairs += n * (n - 1) / 2; pairs > clockCost/64 {
			return false
		}
	}
	return true
}

// keyWork counts work done key by key for a Meter: Add is called once
// some progress.Every items (reads, writers, pairs) have been done, so
// that a history of many small keys pays for it no more than one of a
// few large ones.
type keyWork struct {
	m           *progress.Meter
	keys, items int
	// again says the keys were counted on m already: a second pass over
	// them only checks its error.
	again bool
}

// done records key k (of items items) as done, and returns the Meter's
// error when it reports.
func (w *keyWork) done(items int) error {
	w.keys++
	w.items += items + 1
	if w.items < progress.Every {
		return nil
	}
	w.items = 0
	n := w.keys
	w.keys = 0
	if w.again {
		return w.m.Err()
	}
	return w.m.Add(int64(n))
}

// addSessionOrder adds SO edges between consecutive included transactions
// of each session, and from T0 to each session's first.
func (p *Polygraph) addSessionOrder(res *resolve.Resolution) {
	h := p.History
	// Room for the session order, a WR edge a read, and a sixteenth more
	// for the WW and RW edges of chains, far fewer in most histories: a
	// few past the room copy the whole array into one a quarter larger.
	// (Room for as many as could be, twice the reads, was the peak of a
	// check's memory: the array is copied when the order of writes joins
	// it.) Growing it from empty copied it again and again.
	reads := 0
	for i := range res.Reads {
		if !res.Reads[i].Repeat {
			reads++
		}
	}
	p.Known = slices.Grow(p.Known, len(h.Txns)+reads+reads/16)
	p.Chains = append(p.Chains, []int32{p.T0})
	for _, sess := range h.Sessions {
		chain := make([]int32, 0, len(sess))
		prev := p.T0
		for _, t := range sess {
			if !p.Included[t] {
				continue
			}
			p.Known = append(p.Known, Edge{prev, t, verdict.SO, NoKey})
			prev = t
			chain = append(chain, t)
		}
		if len(chain) > 0 {
			p.Chains = append(p.Chains, chain)
		}
	}
}

// tick reports m's error every progress.Every transactions: t is the
// index of the transaction about to be visited. The transactions do not
// count as done on m: the passes over them prepare a stage that counts
// keys.
func tick(m *progress.Meter, t int) error {
	if t&(progress.Every-1) != 0 || t == 0 {
		return nil
	}
	return m.Err()
}

// before appends the edges that putting chain a before chain b of kc
// adds: a's last write is overwritten by b's first, and so everyone who
// read a's last version read before b.
func before(edges []Edge, readers chainReaders, kc *keyChains, a, b int32) []Edge {
	head := kc.chains[b].head
	edges = append(edges, Edge{kc.chains[a].tail, head, verdict.WW, kc.key})
	for _, r := range readers.of(kc.chains, a) {
		edges = append(edges, Edge{r, head, verdict.RW, kc.key})
	}
	return edges
}

// orderOut collects what ordering the writes of some keys adds: known
// edges, in blocks, and constraints, their edges cut from an arena. Each
// worker of orderChainsIn has its own; they join the polygraph in key order
// (Polygraph.join).
type orderOut struct {
	// known holds the edges in blocks: appended to p.Known, or to one
	// slice, as they come, tens of millions of edges would be copied at
	// every growth (1.5 s of a 1M-transaction check).
	known       [][]Edge
	constraints []Constraint
	arena       arena[Edge]
	// edges counts the edges of constraints, against maxEdges (0: no
	// bound); tooLarge says they went past it.
	edges, maxEdges int
	tooLarge        bool
	// readers are the polygraph's, which the edges of chains name.
	readers chainReaders
	// links records, for keys with a choice, each chain's edges to
	// another (see chainLink).
	links []chainLink
}

// chainLink says that chain A of Key gets its edges to chain B: known
// edges (Constraint -1), or the Either side of constraint Constraint
// (one of the polygraph's, once joined) when Either, its Or side
// otherwise. A read that may have read from A's last writer takes RW
// edges to B's first under the same condition, as A's own readers do.
type chainLink struct {
	Key        history.Key
	A, B       int32
	Constraint int32
	Either     bool
}

// before adds the edges of putting chain a before chain b of kc.
func (o *orderOut) before(kc *keyChains, a, b int32) {
	key := kc.key
	need := 1 + len(o.readers.of(kc.chains, a))
	if n := len(o.known); n == 0 || cap(o.known[n-1])-len(o.known[n-1]) < need {
		size := firstBlock
		if n > 0 {
			size = min(arenaBlock, 2*cap(o.known[n-1]))
		}
		o.known = append(o.known, make([]Edge, 0, max(need, size)))
	}
	last := &o.known[len(o.known)-1]
	*last = before(*last, o.readers, kc, a, b)
	if kc.choice {
		o.links = append(o.links, chainLink{Key: key, A: a, B: b, Constraint: -1})
	}
}

// constraint adds the constraint between chains a and b, counting its
// edges against the bound.
func (o *orderOut) constraint(kc *keyChains, a, b int32) {
	key := kc.key
	na, nb := len(o.readers.of(kc.chains, a)), len(o.readers.of(kc.chains, b))
	o.constraints = append(o.constraints, Constraint{Key: key, A: kc.chains[a].head, B: kc.chains[b].head,
		Either: before(o.arena.alloc(1+na), o.readers, kc, a, b),
		Or:     before(o.arena.alloc(1+nb), o.readers, kc, b, a)})
	o.edges += 2 + na + nb
	o.tooLarge = o.tooLarge || o.maxEdges > 0 && o.edges > o.maxEdges
	if kc.choice {
		ci := int32(len(o.constraints) - 1)
		o.links = append(o.links, chainLink{Key: key, A: a, B: b, Constraint: ci, Either: true},
			chainLink{Key: key, A: b, B: a, Constraint: ci, Either: false})
	}
}

// join adds what outs collected to p, in order, growing p.Known and
// p.Constraints once. With release set, it hands the memory of the
// blocks it has copied back to the operating system an eighth of the way
// at a time, so that the edges are never held twice: at 10M transactions
// they take 5 GB.
func (p *Polygraph) join(outs []orderOut, release bool) {
	edges, constraints := 0, 0
	for i := range outs {
		for _, b := range outs[i].known {
			edges += len(b)
		}
		constraints += len(outs[i].constraints)
	}
	p.Known = slices.Grow(p.Known, edges)
	p.Constraints = slices.Grow(p.Constraints, constraints)
	copied := 0
	for i := range outs {
		o := &outs[i]
		for j, b := range o.known {
			p.Known = append(p.Known, b...)
			o.known[j] = nil
			if copied += len(b); release && copied >= edges/8 {
				copied = 0
				debug.FreeOSMemory()
			}
		}
		for _, l := range o.links {
			if l.Constraint >= 0 {
				l.Constraint += int32(len(p.Constraints))
			}
			p.links = append(p.links, l)
		}
		p.Constraints = append(p.Constraints, o.constraints...)
		p.constraintEdges += o.edges
		p.TooLarge = p.TooLarge || o.tooLarge
		*o = orderOut{}
	}
	if p.maxEdges > 0 && p.constraintEdges > p.maxEdges {
		p.TooLarge = true
	}
}

// arena hands out room for values cut from large blocks, so that millions
// of small slices cost no allocation each: a 1M-transaction history has
// millions of constraints, and their small slices half again their size
// in allocation overhead.
type arena[T any] struct{ block []T }

// arenaBlock is the largest number of values of a block of an arena.
// Blocks start at firstBlock values and double: a check of a history of
// ten transactions (the model checker runs thousands) allocates little,
// and one of millions of constraints allocates their edges in blocks
// large enough for huge pages (hugepage.MinBytes at 16 bytes a value),
// which take 512 times fewer page faults to fill.
const (
	arenaBlock = 1 << 21
	firstBlock = 256
)

// alloc returns an empty slice with room for exactly n values: appending
// more reallocates it rather than run into its neighbour's.
func (a *arena[T]) alloc(n int) []T {
	if cap(a.block)-len(a.block) < n {
		if n > arenaBlock/8 {
			return make([]T, 0, n)
		}
		a.block = make([]T, 0, min(arenaBlock, max(firstBlock, 2*cap(a.block), n)))
		hugepage.Advise(a.block)
	}
	at := len(a.block)
	a.block = a.block[:at+n]
	return a.block[at : at : at+n]
}

// orderAllPairs orders the chains of every key the way Huang et al.
// (PVLDB 2023) do: the initial chain before every other, and a constraint
// for every other pair, adding them to out. It is quadratic in the writers
// of a key; orderChainsIn is the fast path. It counts the keys done on m.
func orderAllPairs(m *progress.Meter, keys []keyChains, out *orderOut) error {
	work := keyWork{m: m}
	for _, kc := range keys {
		cs := kc.chains
		if err := work.done(len(cs)); err != nil {
			return err
		}
		readers := 0
		for i := range int32(len(cs)) {
			readers += len(out.readers.of(cs, i))
		}
		// Every pair has 2 WW edges and every reader of one side's tail an
		// RW edge to the other's head: check the bound before allocating.
		pairs := (len(cs) - 1) * (len(cs) - 2) / 2
		if out.maxEdges > 0 && out.edges+2*pairs+readers*max(len(cs)-2, 0) > out.maxEdges {
			out.tooLarge = true
			return nil
		}
		for j := int32(1); j < int32(len(cs)); j++ {
			out.before(&kc, 0, j)
		}
		for a, pairs := int32(1), 0; a < int32(len(cs)); a++ {
			// A key of many writers makes millions of pairs.
			if pairs += len(cs) - int(a); pairs >= progress.Every {
				pairs = 0
				if err := m.Err(); err != nil {
					return err
				}
			}
			for b := a + 1; b < int32(len(cs)); b++ {
				out.constraint(&kc, a, b)
			}
		}
	}
	return nil
}

// addRealTime adds real-time order without a quadratic number of edges:
// one time node per distinct end time, chained in time order; each
// transaction points to the node of its end, and the node of the latest
// end before a transaction's start points to it. A path T → ... → S exists
// exactly when T ended before S started.
func (p *Polygraph) addRealTime(m *progress.Meter) error {
	h := p.History
	var ends []int64
	for t := range h.Txns {
		if p.Included[t] && h.Txns[t].HasTime() {
			ends = append(ends, h.Txns[t].End)
		}
	}
	if err := m.Err(); err != nil {
		return err
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	if len(ends) == 0 {
		return nil
	}
	if err := m.Err(); err != nil {
		return err
	}
	p.timeOf = ends
	first := p.T0 + 1
	p.NumNodes += len(ends)
	chain := make([]int32, len(ends))
	for i := range ends {
		chain[i] = first + int32(i)
		if i > 0 {
			p.Known = append(p.Known, Edge{first + int32(i-1), first + int32(i), verdict.RT, NoKey})
		}
	}
	p.Chains = append(p.Chains, chain)
	for t := range h.Txns {
		if err := tick(m, t); err != nil {
			return err
		}
		tx := &h.Txns[t]
		if !p.Included[t] || !tx.HasTime() {
			continue
		}
		e, _ := slices.BinarySearch(ends, tx.End)
		p.Known = append(p.Known, Edge{int32(t), first + int32(e), verdict.RT, NoKey})
		// The latest end strictly before the start.
		s, _ := slices.BinarySearch(ends, tx.Start)
		if s > 0 {
			p.Known = append(p.Known, Edge{first + int32(s-1), int32(t), verdict.RT, NoKey})
		}
	}
	return nil
}
