package polygraph

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/internal/hugepage"
	"github.com/isocheck/isocheck/internal/parallel"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// keyChains are the read-modify-write chains of one key. Chain 0 starts at
// the initial transaction.
type keyChains struct {
	key history.Key
	// choice says a read of the key may have read from several writers:
	// ordering its chains records which chains each one precedes (see
	// chainLink). It sits beside key, where it keeps the entry 32 bytes
	// (after chains it took 40): a large history has millions.
	choice bool
	// chains are cut from one array of every key's chains in turn, and
	// one more after the last: the chain after each one in that array
	// ends its readers (see chainReaders.of).
	chains []chain
}

// chain is a maximal sequence of writers of a key, each of which read the
// key from the one before: head, ..., tail. Readers are the transactions
// that read tail's version without writing the key: chainReaders[r0:]
// up to the next chain's r0.
type chain struct {
	head, tail, r0 int32
}

// chainReaders holds the readers of every chain of every key in one
// array, in the order of the chains, which keeps chains 12 bytes and free
// of pointers and a key's entry without a slice of its own: a history of
// ten million transactions has eighty million chains. It is the array
// buildChains grouped the reads by key in, the readers written over the
// reads, or one of its own where the reads were copies (keyReads).
type chainReaders []int32

// of returns the readers of chain i of cs, a key's chains: they end where
// the next chain's begin, and the array cs is cut from holds one more
// chain after every key's last.
func (rs chainReaders) of(cs []chain, i int32) []int32 {
	return rs[cs[i].r0:cs[:i+2][i+1].r0]
}

// buildChains adds, key by key, the WR edges of res's reads and the
// read-modify-write chains with their WW and RW edges, and returns the
// chains. The known beginning of a key's version order (res.Orders,
// sorted by key) links its writers like read-modify-writes do, from the
// initial transaction: they form the key's initial chain, which precedes
// every other.
//
// A large history's keys are cut into ranges of about equal work, one a
// core (see chainBuilder): the edges, anomalies, chains and readers join
// in the order of the keys, as one worker makes them.
func (p *Polygraph) buildChains(m *progress.Meter, res *resolve.Resolution, release bool) ([]keyChains, error) {
	workers := 1
	if len(res.Reads) >= minParallelBuild {
		workers = runtime.GOMAXPROCS(0)
	}
	return p.buildChainsBy(m, res, release, workers)
}

// minParallelBuild is the number of reads from which buildChains uses
// every core.
const minParallelBuild = 1 << 19

// buildChainsBy is buildChains by workers workers.
func (p *Polygraph) buildChainsBy(m *progress.Meter, res *resolve.Resolution, release bool, workers int) ([]keyChains, error) {
	g, err := p.groupByKey(m, res, release, workers)
	if err != nil {
		return nil, err
	}
	p.readers = g.reads.readers
	numKeys := len(g.writerStart) - 1
	// Ranges of keys of about equal work: a key costs its writers and
	// reads, and one.
	work := func(k int) int64 { return int64(g.writerStart[k]) + int64(g.readStart[k]) + int64(k) }
	cuts := []int{0}
	for w := 1; w < workers; w++ {
		target := work(numKeys) * int64(w) / int64(workers)
		cuts = append(cuts, max(cuts[w-1], sort.Search(numKeys, func(k int) bool { return work(k) >= target })))
	}
	cuts = append(cuts, numKeys)
	// Every key's chains go in one array, and one more (see
	// chainReaders.of): a key has at most one chain a writer and the
	// initial one. Each builder fills a window of it, sized so, with room
	// for one chain more, and the windows are then moved together. The
	// keys with chains go in one array the same way (at most every key
	// with a writer), and so do the edges, in the room p.Known has for
	// them (addSessionOrder made it), shared out by reads.
	bs := make([]chainBuilder, workers)
	room, keyRoom := int32(0), 0
	known := p.Known[:cap(p.Known)]
	edgesAt, spare, reads := len(p.Known), int64(cap(p.Known)-len(p.Known)), int64(g.readStart[numKeys])
	for w := range bs {
		lo, hi := cuts[w], cuts[w+1]
		b := &bs[w]
		edgeRoom := int(spare)
		if w < workers-1 && reads > 0 {
			edgeRoom = int(spare * int64(g.readStart[hi]-g.readStart[lo]) / reads)
		}
		*b = chainBuilder{p: p, g: g, lo: lo, hi: hi, edges: known[edgesAt : edgesAt : edgesAt+edgeRoom],
			chainsAt: room, keysAt: keyRoom, readersAt: g.readStart[lo]}
		edgesAt += edgeRoom
		spare -= int64(edgeRoom)
		reads -= int64(g.readStart[hi] - g.readStart[lo])
		room += g.writerStart[hi] - g.writerStart[lo] + 1
		for k := lo; k < hi; k++ {
			if g.writerStart[k+1] > g.writerStart[k] {
				room++
				keyRoom++
			}
		}
	}
	all := make([]chain, room)
	hugepage.Advise(all)
	out := make([]keyChains, keyRoom)
	orders := res.Orders
	for w := range bs {
		b := &bs[w]
		b.all = all[b.chainsAt:]
		b.keys = out[b.keysAt:b.keysAt]
		// The known orders of b's keys (sorted by key).
		i := sort.Search(len(orders), func(i int) bool { return int(orders[i].Key) >= b.lo })
		j := sort.Search(len(orders), func(i int) bool { return int(orders[i].Key) >= b.hi })
		b.orders = orders[i:j]
	}
	var wg sync.WaitGroup
	for w := 1; w < len(bs); w++ {
		wg.Go(func() { bs[w].err = bs[w].run(m) })
	}
	bs[0].err = bs[0].run(m)
	wg.Wait()
	var errs []error
	for w := range bs {
		errs = append(errs, bs[w].err)
	}
	if err := errors.Join(errs...); err != nil {
		for w := range bs {
			bs[w].spill.free()
		}
		return nil, err
	}
	return p.joinChains(bs, all, out), nil
}

// joinChains joins what the builders bs made, in the order of their keys:
// their edges after p.Known's (see joinEdges), their anomalies, and their
// keys, chains and readers moved together, down to the end of the ones
// before, in out, all and p.readers.
func (p *Polygraph) joinChains(bs []chainBuilder, all []chain, out []keyChains) []keyChains {
	p.joinEdges(bs)
	keys, chains, readers := 0, int32(0), int32(0)
	for w := range bs {
		b := &bs[w]
		p.Anomalies = append(p.Anomalies, b.anomalies...)
		// The chains, with the one after the last, and the readers.
		shift := readers - b.readersAt
		moved := all[chains : chains+b.chains+1]
		copy(moved, all[b.chainsAt:b.chainsAt+b.chains+1])
		if shift != 0 {
			for i := range moved {
				moved[i].r0 += shift
			}
		}
		copy(p.readers[readers:], p.readers[b.readersAt:b.readersAt+b.readers])
		// A builder's keys' chains follow one another.
		at := chains
		for _, kc := range b.keys {
			kc.chains = all[at : at+int32(len(kc.chains))] // its capacity reaches the chain after
			at += int32(len(kc.chains))
			out[keys] = kc
			keys++
		}
		chains += b.chains
		readers += b.readers
	}
	return out[:keys]
}

// joinEdges joins the builders' edges after p.Known's. Where each fit in
// its room, they are moved down together, in place. Where one did not,
// they are copied to an array of their own, with its spill.
func (p *Polygraph) joinEdges(bs []chainBuilder) {
	n, spilled := len(p.Known), false
	for w := range bs {
		n += len(bs[w].edges) + bs[w].spill.len()
		spilled = spilled || bs[w].spill.len() > 0
	}
	if !spilled {
		known := p.Known[:cap(p.Known)]
		end := len(p.Known)
		for w := range bs {
			end += copy(known[end:], bs[w].edges)
		}
		p.Known = known[:end]
		return
	}
	known := append(make([]Edge, 0, n), p.Known...)
	for w := range bs {
		known = append(known, bs[w].edges...)
		known = bs[w].spill.appendTo(known)
	}
	p.Known = known
}

// chainBuilder builds the chains of keys lo up to hi, and their edges
// (see buildChains). Its scratch is by writer of the key at hand (its
// place among the key's writers), not by transaction: builders side by
// side need no arrays as large as the history each, and the scratch of a
// key stays in the cache.
type chainBuilder struct {
	p      *Polygraph
	g      *byKey
	lo, hi int
	orders []resolve.KeyOrder
	// edges are the builder's edges in its room of p.Known's array;
	// spill those past it.
	edges     []Edge
	spill     edgeBlocks
	anomalies []resolve.Anomaly
	// all is this builder's window of the array of all chains, which
	// starts at chainsAt in it; chains are used so far. keys are its keys
	// with chains, in its window of those of every builder, from keysAt.
	all              []chain
	chainsAt, chains int32
	keys             []keyChains
	keysAt           int
	// readers are the readers written over the reads of the builder's
	// keys, in p.readers from readersAt on.
	readersAt, readers int32
	// sink keeps the words touched ahead (see keyReads.touch).
	sink int32
	err  error
}

// run builds the chains of the builder's keys.
func (b *chainBuilder) run(m *progress.Meter) error {
	p, g := b.p, b.g
	reads := &g.reads
	// Scratch by place among the key's writers, the initial transaction
	// last: next is the writer that read-modify-wrote each one's version,
	// readHead the first of the other reads of it, linked through
	// readNext; hasPrev says a writer read-modify-wrote another's.
	var next, readHead, readNext []int32
	var hasPrev []bool
	var chains []chain
	var readers []int32
	orders := b.orders
	work := keyWork{m: m}
	// The chain after the last, should the builder keep none.
	b.all[0] = chain{r0: b.readersAt}
	touched := b.lo // the keys before touched had their reads touched
	var sink int32
	defer func() { b.sink = sink }()
	for k := b.lo; k < b.hi; k++ {
		key := history.Key(k)
		writers := g.writers[g.writerStart[k]:g.writerStart[k+1]]
		r0, r1 := g.readStart[k], g.readStart[k+1]
		if err := work.done(len(writers) + int(r1-r0)); err != nil {
			return err
		}
		if k == touched {
			var s int32
			touched, s = reads.touch(g.readStart, k, b.hi)
			sink ^= s
		}
		if len(writers) == 0 {
			for j := r0; j < r1; j++ {
				w, r, _ := reads.at(j)
				b.edge(Edge{w, r, verdict.WR, key})
			}
			continue
		}
		// place returns u's place among the writers (len(writers) for
		// the initial transaction), node its inverse.
		t0 := int32(len(writers))
		place := func(u int32) (int32, error) {
			if u == p.T0 {
				return t0, nil
			}
			i, ok := slices.BinarySearch(writers, u)
			if !ok {
				return 0, fmt.Errorf("polygraph: internal error: transaction %s is not a writer of key %s", p.History.Name(int(u)), p.History.FormatKey(key))
			}
			return int32(i), nil
		}
		node := func(i int32) int32 {
			if i == t0 {
				return p.T0
			}
			return writers[i]
		}
		next, readHead = fill(next, t0+1, -1), fill(readHead, t0+1, -1)
		hasPrev = fill(hasPrev, t0+1, false)
		for len(orders) > 0 && orders[0].Key < key {
			orders = orders[1:]
		}
		if len(orders) > 0 && orders[0].Key == key {
			prev := t0
			for _, w := range orders[0].Writers {
				i, err := place(w)
				if err != nil {
					return err
				}
				next[prev], hasPrev[i] = i, true
				prev = i
			}
		}
		readNext = readNext[:0]
		for i := range r1 - r0 {
			writer, reader, rmw := reads.at(r0 + i)
			readNext = append(readNext, -1)
			b.edge(Edge{writer, reader, verdict.WR, key})
			w, err := place(writer)
			if err != nil {
				return err
			}
			if !rmw {
				readNext[i] = readHead[w]
				readHead[w] = i
				continue
			}
			r, err := place(reader)
			if err != nil {
				return err
			}
			if next[w] == r {
				continue // the version order shows the read-modify-write
			}
			if next[w] >= 0 {
				b.anomalies = append(b.anomalies, resolve.Anomaly{Kind: verdict.LostUpdate, Txn: reader, Op: -1, OtherOp: -1, Writer: writer, OtherTxn: node(next[w]), Key: key})
				continue
			}
			if hasPrev[r] {
				// The version order puts the reader before the version
				// it read: the known edges close a cycle through this read.
				continue
			}
			next[w], hasPrev[r] = r, true
		}
		// Chains from every head: T0 and the blind writers. They are
		// built in scratch and copied to the array of all chains only
		// for keys that keep them.
		chains, readers = chains[:0], readers[:0]
		for hi := int32(-1); hi < t0; hi++ {
			head := t0
			if hi >= 0 {
				head = hi
			}
			if head != t0 && hasPrev[head] {
				continue
			}
			u := head
			for next[u] >= 0 {
				v := next[u]
				b.edge(Edge{node(u), node(v), verdict.WW, key})
				for i := readHead[u]; i >= 0; i = readNext[i] {
					b.edge(Edge{reads.reader(r0 + i), node(v), verdict.RW, key})
				}
				u = v
			}
			chains = append(chains, chain{head: node(head), tail: node(u), r0: b.readersAt + b.readers + int32(len(readers))})
			for i := readHead[u]; i >= 0; i = readNext[i] {
				readers = append(readers, reads.reader(r0+i))
			}
		}
		// Writers on no chain from a head read from each other in a
		// cycle; their WR edges already make the known graph cyclic.
		if len(chains) > 1 {
			// The readers are no more than the reads of the keys so far,
			// which are done with: they take their place.
			at := b.readersAt + b.readers
			b.readers += int32(copy(p.readers[at:r1], readers))
			n := int32(copy(b.all[b.chains:], chains))
			b.keys = append(b.keys, keyChains{key: key, chains: b.all[b.chains : b.chains+n]}) // within its room
			b.chains += n
			b.all[b.chains] = chain{r0: b.readersAt + b.readers}
		}
	}
	return nil
}

// edge adds e to the builder's edges.
func (b *chainBuilder) edge(e Edge) {
	if len(b.edges) < cap(b.edges) {
		b.edges = append(b.edges, e)
		return
	}
	b.spill.add(e)
}

// fill returns s with n elements, each v, reusing its array.
func fill[T any](s []T, n int32, v T) []T {
	s = slices.Grow(s[:0], int(n))[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

// edgeBlocks are the edges past a builder's room in p.Known, kept in
// blocks outside Go's heap (see hugepage.Array), so that each is handed
// back to the system as soon as it is copied where it goes.
type edgeBlocks struct {
	full []*hugepage.Array[Edge]
	cur  []Edge
	mem  *hugepage.Array[Edge] // cur's memory
}

// edgeBlock is the number of edges in a block of edgeBlocks.
const edgeBlock = 1 << 16

func (bl *edgeBlocks) add(e Edge) {
	if len(bl.cur) == cap(bl.cur) {
		if bl.mem != nil {
			bl.full = append(bl.full, bl.mem)
		}
		bl.mem = hugepage.Alloc[Edge](edgeBlock)
		bl.cur = bl.mem.S[:0]
	}
	bl.cur = append(bl.cur, e)
}

// len returns the number of edges in the blocks.
func (bl *edgeBlocks) len() int { return len(bl.full)*edgeBlock + len(bl.cur) }

// appendTo appends the edges to s, hands the blocks back, and returns s.
func (bl *edgeBlocks) appendTo(s []Edge) []Edge {
	for _, a := range bl.full {
		s = append(s, a.S...)
		a.Free()
	}
	s = append(s, bl.cur...)
	bl.free()
	return s
}

// free hands back the blocks not handed back yet.
func (bl *edgeBlocks) free() {
	for _, a := range bl.full {
		a.Free()
	}
	if bl.mem != nil {
		bl.mem.Free()
	}
	*bl = edgeBlocks{}
}

// byKey are the final writes and the reads that count of a resolution,
// grouped by key.
type byKey struct {
	// writers[writerStart[k]:writerStart[k+1]] are the included
	// transactions that install a version of key k, in history order.
	writerStart, writers []int32
	// The reads of key k are reads' readStart[k] up to readStart[k+1].
	readStart []int32
	reads     keyReads
}

// groupByKey groups the final writes and the reads of res by key:
// counting sorts into flat arrays, so that a history of many keys costs
// no allocation a key. Only a transaction's first read of a key counts:
// a later one that differs is a NonRepeatableRead, reported already.
// With release, the reads are copied and res's released (see
// groupReads).
//
// Each of workers goroutines groups the keys of a range of its own: it
// goes through every write and read, and counts and places those of its
// keys (the counts and places are the cache misses, which the cores
// overlap).
func (p *Polygraph) groupByKey(m *progress.Meter, res *resolve.Resolution, release bool, workers int) (*byKey, error) {
	h := p.History
	numKeys := h.NumKeys()
	g := &byKey{writerStart: make([]int32, numKeys+1), readStart: make([]int32, numKeys+1)}
	each := keyRanges{numKeys, workers}.each
	// finalWrites calls f with each final write of an included
	// transaction from lo up to hi, in history order.
	finalWrites := func(lo, hi int, f func(t int32, k history.Key)) error {
		for t := lo; t < hi; t++ {
			if err := tick(m, t); err != nil {
				return err
			}
			if !p.Included[t] {
				continue
			}
			tx := &h.Txns[t]
			for i := tx.OpStart; i < tx.OpEnd; i++ {
				if res.IsFinalWrite(i) {
					f(int32(t), h.Ops[i].Key)
				}
			}
		}
		return nil
	}
	// The counts: each worker counts a share of the transactions and of
	// the reads, adding atomically where it is not alone (a key's come
	// from anywhere), rather than going through them all for a range of
	// keys as the placing below does: that order is not needed here.
	add := func(n *int32) { *n++ }
	if workers > 1 {
		add = func(n *int32) { atomic.AddInt32(n, 1) }
	}
	err := parallel.Each(len(h.Txns), workers, func(w, lo, hi int) error {
		reads := len(res.Reads)
		for _, r := range res.Reads[parallel.Share(reads, w, workers):parallel.Share(reads, w+1, workers)] {
			if !r.Repeat {
				add(&g.readStart[r.Key+1])
			}
		}
		return finalWrites(lo, hi, func(_ int32, k history.Key) { add(&g.writerStart[k+1]) })
	})
	if err != nil {
		return nil, err
	}
	for k := range numKeys {
		g.writerStart[k+1] += g.writerStart[k]
		g.readStart[k+1] += g.readStart[k]
	}
	g.writers = make([]int32, g.writerStart[numKeys])
	fill := slices.Clone(g.writerStart[:numKeys])
	err = each(func(lo, hi history.Key) error {
		return finalWrites(0, len(h.Txns), func(t int32, k history.Key) {
			if k >= lo && k < hi {
				g.writers[fill[k]] = t
				fill[k]++
			}
		})
	})
	if err != nil {
		return nil, err
	}
	copy(fill, g.readStart[:numKeys])
	g.reads = groupReads(res, g.readStart[numKeys], fill, release, keyRanges{numKeys, workers})
	return g, nil
}

// keyRanges cuts keys into ranges of as many keys each, one a worker.
type keyRanges struct{ keys, workers int }

// each runs f on every range, side by side, and returns their errors.
func (kr keyRanges) each(f func(lo, hi history.Key) error) error {
	return parallel.Each(kr.keys, kr.workers, func(_, lo, hi int) error { return f(history.Key(lo), history.Key(hi)) })
}

// keyReads are the external reads of a resolution that count for the
// polygraph (a transaction's first read of each key), grouped by key:
// read j of the groups is at(j).
//
// They are indexes into the resolution's reads, not copies: a copy was
// the largest array of a large check while it lived. Where the caller
// lets the resolution's reads go (Options.ReleaseReads), they are copies
// of the two transactions alone, 8 bytes a read against the 20 of a
// resolve.ExternalRead they replace, and readers is an array of its own.
// Otherwise each key's readers take the place of its indexes once they
// are done with (chainReaders).
type keyReads struct {
	all   []resolve.ExternalRead
	index []int32 // into all, by key; nil when own holds the reads
	own   []ownRead
	// readers is the array chainReaders cuts.
	readers []int32
}

// ownRead is a read of keyReads.own: reader is ^reader (negative) for a
// read-modify-write.
type ownRead struct{ writer, reader int32 }

// groupReads groups the first reads of res by key: n of them, key k's
// from fill[k] on, each range of keys of kr placed by a worker of its own.
// With release, it copies them and releases res's.
func groupReads(res *resolve.Resolution, n int32, fill []int32, release bool, kr keyRanges) keyReads {
	all := res.Reads
	if !release {
		index := make([]int32, n)
		kr.each(func(lo, hi history.Key) error {
			for i, r := range all {
				if !r.Repeat && r.Key >= lo && r.Key < hi {
					index[fill[r.Key]] = int32(i)
					fill[r.Key]++
				}
			}
			return nil
		})
		return keyReads{all: all, index: index, readers: index}
	}
	own := make([]ownRead, n)
	hugepage.Advise(own)
	kr.each(func(lo, hi history.Key) error {
		for _, r := range all {
			if !r.Repeat && r.Key >= lo && r.Key < hi {
				reader := r.Reader
				if r.RMW {
					reader = ^reader
				}
				own[fill[r.Key]] = ownRead{r.Writer, reader}
				fill[r.Key]++
			}
		}
		return nil
	})
	res.Release()
	all = nil
	if n >= releaseEdges {
		// The reads released are garbage: handed back to the system now,
		// rather than only collected, as the edges and chains to come
		// did not reuse their room and raised the peak by 0.5 GB at ten
		// million transactions (measured).
		debug.FreeOSMemory()
	}
	readers := make([]int32, n)
	hugepage.Advise(readers)
	return keyReads{own: own, readers: readers}
}

// at returns the writer and the reader of read j, and whether it is a
// read-modify-write.
func (g *keyReads) at(j int32) (writer, reader int32, rmw bool) {
	if g.index == nil {
		r := g.own[j]
		if r.reader < 0 {
			return r.writer, ^r.reader, true
		}
		return r.writer, r.reader, false
	}
	r := &g.all[g.index[j]]
	return r.Writer, r.Reader, r.RMW
}

// touchBatch is the number of reads keyReads.touch loads ahead.
const touchBatch = 32

// touch loads the reads of the keys from k on (up to hi, the end of the
// caller's: the reads of the keys after may be readers already), about
// touchBatch of them, where they are the resolution's (grouped by an
// index, so scattered), and returns the key it stopped before. It exists
// for the cache misses: loads in a loop of their own overlap, where the
// reads looked up one at a time, each behind the work on the one
// before, wait for their misses mostly one by one (two fifths of the
// build of a million transactions, before).
func (g *keyReads) touch(readStart []int32, k, hi int) (int, int32) {
	if g.index == nil {
		return hi, 0 // copies, read in order
	}
	start := readStart[k]
	end := min(start+touchBatch, readStart[hi])
	for k < hi && readStart[k] < end {
		k++
	}
	var sink int32
	for _, i := range g.index[start:readStart[k]] {
		sink ^= g.all[i].Writer
	}
	return k, sink
}

// reader returns the reader of read j.
func (g *keyReads) reader(j int32) int32 {
	_, r, _ := g.at(j)
	return r
}
