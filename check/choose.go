package check

import (
	"cmp"
	"container/heap"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/isocheck/isocheck/digraph"
	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/polygraph"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/solver"
	"github.com/isocheck/isocheck/verdict"
)

// Case is one part of the proof that a history whose values repeat
// violates a level: with the reads of Picks reading from those writers,
// whatever the other reads read from, Result is a violation (its
// evidence holds with those writers). The cases of a Result cover every
// choice of writers: each takes all the picks of one case.
type Case struct {
	Picks  []resolve.Pick
	Result *Result
}

// maxShrinkPicks is the most picks a case is shrunk from, one check each:
// a case of more keeps what the evidence named.
const maxShrinkPicks = 12

// checkChoosing checks a history some of whose reads may have read from
// several writers (r.Choices), case by case: does some choice of writers,
// with some commit order, satisfy l? It is solver.Search, the lazy search
// of satisfiability modulo theories, over one option per choice (its
// writers, after those reachability rules out: pruneChoices), the first
// proposal each read's likeliest writer (rankWriters); the theory is the
// level's own check of the history with the writers proposed. Each
// violation it finds rules out the few picks its evidence needs
// (conflict: confirmed by checking the history with those picks alone,
// which only relaxes the others, a check being monotone in the reads it
// keeps), which become a Case of the explanation.
//
// RC, RA and CC take this path; before it, they guess (checkGuessed),
// then try stronger levels (satisfiedAsStronger): SSER, which real time
// bounds, and SI, whose solver chooses writers beside the order of
// writes (encode.AddChoices). With unique values, or
// one candidate for every read, the level's check runs as on any
// history: in polynomial time for RC, RA and CC. The polynomial
// algorithms of Biswas and Enea ("On the Complexity of Checking
// Transactional Consistency", OOPSLA 2019, Section 3) take each read's
// writer as given, which unique values make it (Section 1); choosing
// writers is NP-hard in general: for a register's linearizability
// (Gibbons and Korach, "Testing Shared Memories", SIAM Journal on
// Computing 26(4), 1997) and for causal consistency, which transactions
// of one operation each reduce to (Bouajjani, Enea, Guerraoui and Hamza,
// "On Verifying Causal Consistency", POPL 2017). So this search may take
// many rounds where writers must be guessed jointly.
func checkChoosing(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	if !opts.Cases && !solverChooses(l) && !excludedCandidates(r) {
		if res, err := satisfiedFirst(ctx, r, l, opts); err != nil || res != nil {
			return res, err
		}
		if res, err := checkGuessed(ctx, r, l, opts); err != nil || res != nil {
			return res, err
		}
		if res, err := satisfiedAsStronger(ctx, r, l, opts); err != nil || res != nil {
			return res, err
		}
	}
	cs := pruneChoices(ctx, r, l)
	if err := ctx.Err(); err != nil {
		return noVerdict(ctx, &Result{Level: l, Polygraph: nodesOf(r)}, context.Cause(ctx))
	}
	options := make([]int, len(cs))
	prefer := make([]int, len(cs))
	for i, rank := range rankWriters(r, cs) {
		options[i] = len(cs[i].Writers)
		prefer[i] = rank[0]
	}
	at := make(map[int32]int, len(cs))
	for i, c := range cs {
		at[c.Op] = i
	}
	var (
		cases []Case
		ended bool    // the theory ended the search, with last and its error
		last  *Result // the Result of the theory's last check
	)
	theory := func(ctx context.Context, pick []int) (solver.Judgement, error) {
		picks := make([]resolve.Pick, len(cs))
		for i, c := range cs {
			picks[i] = resolve.Pick{Op: c.Op, Writer: c.Writers[pick[i]]}
		}
		res, err := checkPicked(ctx, r, l, opts, picks)
		if err == nil && res.Verdict == verdict.Violated {
			var part []resolve.Pick
			part, res, err = conflict(ctx, r, l, opts, picks, res)
			if err == nil && res.Verdict == verdict.Violated {
				if len(part) > 0 {
					cases = append(cases, Case{Picks: part, Result: res})
					return solver.Conflict(ruleOf(at, pick, part)...), nil
				}
				// Violated whatever the reads read from.
				ended, last = true, res
				return solver.Conflict(), nil
			}
		}
		ended, last = true, res
		if res != nil && res.Verdict == verdict.Satisfied {
			res.Picks = picks
		}
		switch {
		case err != nil:
			return solver.Undecided(), err
		case res.Verdict == verdict.Satisfied:
			return solver.Consistent(), nil
		}
		return solver.Undecided(), nil
	}
	found, err := solver.Search(ctx, options, prefer, theory)
	res := last
	switch {
	case ended:
	case err != nil:
		res, err = noVerdict(ctx, &Result{Level: l, Polygraph: nodesOf(r)}, err)
	default: // every choice of writers ruled out
		res = violatedByCases(cs, cases)
	}
	if res != nil {
		res.Stats.Choices, res.Stats.ChoiceRounds = len(cs), found.Rounds
	}
	return res, err
}

// ruleOf returns the options of the assignment pick that picks, a part
// of it, take; at maps the operation of each choice to its index.
func ruleOf(at map[int32]int, pick []int, picks []resolve.Pick) []solver.Option {
	rule := make([]solver.Option, len(picks))
	for j, p := range picks {
		i := at[p.Op]
		rule[j] = solver.Option{Choice: i, Option: pick[i]}
	}
	return rule
}

// satisfiedAsStronger looks for writers of r's choices that satisfy l by
// checking stronger levels: writers that satisfy a stronger level
// satisfy every weaker one with it, so one check of the stronger level
// and one of l with its writers may settle what guessing did not. First
// SSER, where every transaction checked has times: real time rules out
// most writers of a repeated value (a read cannot see a version
// overwritten before it began), so a history the database got right is
// decided at SSER at about the cost of one of unique values, where
// weaker levels, which real time does not bound, would search. Then,
// for RC, RA and CC, SI, whose solver chooses writers beside the order
// of writes. It returns the satisfied Result with those writers
// (Picks), a Result without a verdict when ctx ended, and nil
// otherwise: a stronger level broken says nothing of l.
func satisfiedAsStronger(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	var tries []level.Level
	if l != level.SSER && hasTimes(r) {
		tries = append(tries, level.SSER)
	}
	if !solverChooses(l) {
		tries = append(tries, level.SI)
	}
	for _, s := range tries {
		if res, err := satisfiedAs(ctx, r, l, s, opts); err != nil || res != nil {
			return res, err
		}
	}
	return nil, nil
}

// satisfiedAs checks r at s, a level stronger than l, then l with the
// writers that satisfy s: the Result when that settles l (or ctx ended),
// else nil.
func satisfiedAs(ctx context.Context, r *resolve.Resolution, l, s level.Level, opts Options) (*Result, error) {
	picks, known := opts.stronger.witness(s)
	if !known {
		res, err := checkLevelChoosing(ctx, r, s, opts, false)
		switch {
		case err != nil:
			return nil, err
		case res.Verdict == verdict.Unknown && res.Stopped:
			res.Level = l
			return res, nil
		case res.Verdict == verdict.Satisfied:
			picks = res.Picks
			opts.stronger.remember(s, picks)
		case res.Verdict == verdict.Violated:
			opts.stronger.remember(s, nil)
		}
	}
	if picks == nil {
		return nil, nil // violated, or a limit of s's own: go on
	}
	return satisfiedWith(ctx, r, l, opts, picks)
}

// satisfiedFirst checks l on r with the writers of a witness of l, or of
// a stronger level, that an earlier check of r found (Options.stronger):
// the satisfied Result, a Result without a verdict when ctx ended, else
// nil.
func satisfiedFirst(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	for _, s := range level.All() {
		if picks, _ := opts.stronger.witness(s); picks != nil {
			return satisfiedWith(ctx, r, l, opts, picks)
		}
		if s == l {
			break
		}
	}
	return nil, nil
}

// satisfiedWith checks l on r with the writers of picks: the Result when
// that settles l (or ctx ended), else nil.
func satisfiedWith(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options, picks []resolve.Pick) (*Result, error) {
	got, err := checkPicked(ctx, r, l, opts, picks)
	if err == nil && got.Verdict == verdict.Unknown && !got.Stopped {
		return nil, nil
	}
	if err != nil || got.Verdict != verdict.Violated {
		if got != nil && got.Verdict == verdict.Satisfied {
			got.Picks = picks
			got.Stats.Choices, got.Stats.ChoiceRounds = len(r.Choices), 1
		}
		return got, err
	}
	return nil, nil
}

// strongerChecks remembers the checks of stronger levels that
// satisfiedAs made on one resolution, for the checks of the other levels
// on it (CheckAll): the writers that satisfy a level, or that it is
// broken. A nil *strongerChecks remembers nothing.
type strongerChecks struct {
	mu      sync.Mutex
	checked map[level.Level][]resolve.Pick // nil: broken
}

// witness returns the writers that satisfy s, nil if s is broken, and
// whether s was checked.
func (c *strongerChecks) witness(s level.Level) ([]resolve.Pick, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	picks, ok := c.checked[s]
	return picks, ok
}

// remember records the writers that satisfy s, or nil when s is broken.
func (c *strongerChecks) remember(s level.Level, picks []resolve.Pick) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked == nil {
		c.checked = make(map[level.Level][]resolve.Pick)
	}
	c.checked[s] = picks
}

// hasTimes reports whether every transaction r checks has its times.
func hasTimes(r *resolve.Resolution) bool {
	h := r.History
	some := false
	for t := range h.Txns {
		if r.Included[t] {
			if !h.Txns[t].HasTime() {
				return false
			}
			some = true
		}
	}
	return some
}

// pruneChoices returns r's choices without the writers that reading from
// would break l whatever else holds, as reachability by session order
// and the reads of one writer shows (every level's commit order contains
// both): the reader reaches the writer; or, at CC and above, the writer
// reaches another writer of the key that reaches the reader (which the
// reader must then see overwrite the writer's version, Biswas and Enea's
// axiom of causal consistency); or, at RA, another writer the writer
// reaches precedes the reader in its session or wrote a value the reader
// read (their read atomicity). A choice left with one writer is known,
// and its read joins the reachability of the next pass. A choice whose
// every writer is ruled out keeps them all: the check shows why.
func pruneChoices(ctx context.Context, r *resolve.Resolution, l level.Level) []resolve.Choice {
	h := r.History
	n := int32(len(h.Txns))
	cs := make([]resolve.Choice, len(r.Choices))
	for i, c := range r.Choices {
		cs[i] = c
		cs[i].Writers = slices.Clone(c.Writers)
	}
	// The writers of each key of a choice: included, not rolled back.
	writers := make(map[history.Key][]int32)
	for _, c := range cs {
		writers[c.Key] = nil
	}
	for t := range h.Txns {
		if !r.Installs(int32(t)) {
			continue
		}
		for _, op := range h.OpsOf(t) {
			if ws, ok := writers[op.Key]; op.Kind == history.Write && ok && (len(ws) == 0 || ws[len(ws)-1] != int32(t)) {
				writers[op.Key] = append(ws, int32(t))
			}
		}
	}
	chains := make([][]int32, 0, len(h.Sessions)+1)
	chains = append(chains, []int32{n})
	var edges []digraph.Edge
	for _, sess := range h.Sessions {
		chains = append(chains, sess)
		prev := n
		for _, t := range sess {
			edges = append(edges, digraph.Edge{From: prev, To: t})
			prev = t
		}
	}
	for _, rd := range r.Reads {
		if rd.Writer != rd.Reader {
			edges = append(edges, digraph.Edge{From: rd.Writer, To: rd.Reader})
		}
	}
	// direct[(w2, r)]: w2 precedes r in session or r read from w2.
	sessionPos := make([]int32, n)
	for _, sess := range h.Sessions {
		for i, t := range sess {
			sessionPos[t] = int32(i)
		}
	}
	readFrom := make(map[[2]int32]bool)
	for _, rd := range r.Reads {
		readFrom[[2]int32{rd.Writer, rd.Reader}] = true
	}
	direct := func(w2, rd int32) bool {
		return h.Txns[w2].Session == h.Txns[rd].Session && sessionPos[w2] < sessionPos[rd] || readFrom[[2]int32{w2, rd}]
	}
	var must latestOnChains
	for pass := 0; pass < 8; pass++ {
		g := digraph.New(int(n)+1, edges)
		order, ok := g.TopoOrder()
		if !ok {
			break // a cycle already: the check shows it
		}
		clocks := digraph.NewClocks(g, order, chains)
		// A writer w of a choice is ruled out when the reader reaches it,
		// or when w reaches a writer w2 of the key (not w) that the
		// reader must see (must): at CC and above one that reaches the
		// reader, at RA one it directly follows. must keeps, per chain,
		// the two latest positions of such writers, so that each
		// candidate asks one clock entry per chain rather than one
		// question per writer of the key.
		impossible := func(c *resolve.Choice, w int32) bool {
			if clocks.Reaches(c.Reader, w) {
				return true
			}
			for _, ch := range must.chains {
				e := clocks.Earliest(w, ch)
				if p := must.latestBut(ch, w); p >= 0 && e <= p {
					return true
				}
			}
			for _, w2 := range must.off {
				if w2 != w && clocks.Reaches(w, w2) {
					return true
				}
			}
			return false
		}
		must.reset(len(chains))
		changed := false
		for i := range cs {
			if i%256 == 0 && ctx.Err() != nil {
				return cs // pruning is optional: the caller sees ctx end
			}
			c := &cs[i]
			if len(c.Writers) < 2 || !r.Included[c.Reader] {
				continue
			}
			must.clear()
			for _, w2 := range writers[c.Key] {
				if w2 == c.Reader {
					continue
				}
				switch {
				case l == level.RA && direct(w2, c.Reader), l != level.RA && l != level.RC && clocks.Reaches(w2, c.Reader):
					if ch, pos := clocks.Chain(w2); ch >= 0 {
						must.add(ch, pos, w2)
					} else {
						must.off = append(must.off, w2)
					}
				}
			}
			kept := c.Writers[:0:0]
			for _, w := range c.Writers {
				if !impossible(c, w) {
					kept = append(kept, w)
				}
			}
			if len(kept) == 0 || len(kept) == len(c.Writers) {
				continue
			}
			c.Writers, changed = kept, true
			if len(kept) == 1 {
				edges = append(edges, digraph.Edge{From: kept[0], To: c.Reader})
				readFrom[[2]int32{kept[0], c.Reader}] = true
			}
		}
		if !changed {
			break
		}
	}
	return cs
}

// latestOnChains keeps the two latest positions, and the node at the
// latest, of the nodes added on each chain, with the chains touched;
// off holds the nodes on no chain.
type latestOnChains struct {
	chains        []int32
	first, second []int32 // -1: none
	firstNode     []int32
	off           []int32
}

// reset sizes l for n chains, empty.
func (l *latestOnChains) reset(n int) {
	l.chains, l.off = l.chains[:0], l.off[:0]
	l.first, l.second, l.firstNode = make([]int32, n), make([]int32, n), make([]int32, n)
	for i := range n {
		l.first[i], l.second[i] = -1, -1
	}
}

// clear empties l.
func (l *latestOnChains) clear() {
	for _, ch := range l.chains {
		l.first[ch], l.second[ch] = -1, -1
	}
	l.chains, l.off = l.chains[:0], l.off[:0]
}

// add adds node u at position pos of chain ch.
func (l *latestOnChains) add(ch, pos, u int32) {
	switch {
	case l.first[ch] < 0:
		l.chains = append(l.chains, ch)
		l.first[ch], l.firstNode[ch] = pos, u
	case pos > l.first[ch]:
		l.second[ch] = l.first[ch]
		l.first[ch], l.firstNode[ch] = pos, u
	case pos > l.second[ch]:
		l.second[ch] = pos
	}
}

// latestBut returns the latest position on chain ch of a node other
// than u, or -1.
func (l *latestOnChains) latestBut(ch, u int32) int32 {
	if l.firstNode[ch] == u {
		return l.second[ch]
	}
	return l.first[ch]
}

// knownPicks returns the picks of the choices of cs (r's, pruned) left
// with one writer.
func knownPicks(r *resolve.Resolution, cs []resolve.Choice) []resolve.Pick {
	var out []resolve.Pick
	for i, c := range cs {
		if len(c.Writers) == 1 && len(r.Choices[i].Writers) > 1 {
			out = append(out, resolve.Pick{Op: c.Op, Writer: c.Writers[0]})
		}
	}
	return out
}

// solverChooses reports whether the checks of l choose writers in the
// solver, beside the order of writes: SER, SI and SSER, and PC through
// them. RC, RA and CC choose case by case (checkChoosing).
func solverChooses(l level.Level) bool {
	return l == level.SER || l == level.SI || l == level.SSER || l == level.PC
}

// excludedCandidates reports whether a choice of r has a candidate that
// is left out of the check (a transaction of unknown outcome nobody is
// known to have read from): choosing it would bring it, and its own
// reads, in, which only the case-by-case search does.
func excludedCandidates(r *resolve.Resolution) bool {
	n := len(r.History.Txns)
	for _, c := range r.Choices {
		if !r.Included[c.Reader] {
			continue
		}
		for _, w := range c.Writers {
			if int(w) < n && !r.Included[w] {
				return true
			}
		}
	}
	return false
}

// checkPicked checks l on r with the writers of picks.
func checkPicked(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options, picks []resolve.Pick) (*Result, error) {
	sub, err := r.Choose(ctx, picks)
	if err != nil {
		res := &Result{Level: l, Polygraph: nodesOf(r)}
		return noVerdict(ctx, res, err)
	}
	return checkLevel(ctx, sub, l, opts)
}

// violatedByCases is the Result of a search whose cases cover every
// choice: the first case's violation, with all the cases.
func violatedByCases(cs []resolve.Choice, cases []Case) *Result {
	res := *cases[0].Result
	res.Cases = cases
	picked := make(map[int32]bool)
	for _, c := range cases {
		for _, p := range c.Picks {
			picked[p.Op] = true
		}
	}
	for _, c := range cs {
		if picked[c.Op] {
			res.Choices = append(res.Choices, c)
		}
	}
	return &res
}

// conflict returns the part of picks that the violation res found with
// them needs, and the violation found with that part alone: the picks of
// the reads its evidence names, when they suffice, shrunk one pick at a
// time while they are few; else all of picks.
func conflict(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options, picks []resolve.Pick, res *Result) ([]resolve.Pick, *Result, error) {
	named := namedPicks(r, picks, res)
	part := picks
	if len(named) < len(picks) {
		got, err := checkPicked(ctx, r, l, opts, named)
		if err != nil || got.Verdict == verdict.Unknown {
			return nil, got, err
		}
		if got.Verdict == verdict.Violated {
			part, res = named, got
		}
	}
	if len(part) > maxShrinkPicks {
		return part, res, nil
	}
	for i := 0; i < len(part); {
		less := slices.Delete(slices.Clone(part), i, i+1)
		got, err := checkPicked(ctx, r, l, opts, less)
		if err != nil || got.Verdict == verdict.Unknown {
			return nil, got, err
		}
		if got.Verdict == verdict.Violated {
			part, res = less, got
			continue
		}
		i++
	}
	return part, res, nil
}

// namedPicks returns the picks of the reads whose reader and key an edge
// or anomaly of res's evidence names.
func namedPicks(r *resolve.Resolution, picks []resolve.Pick, res *Result) []resolve.Pick {
	type readOf struct {
		txn int32
		key history.Key
	}
	named := make(map[readOf]bool)
	edge := func(e polygraph.Edge) {
		named[readOf{e.From, e.Key}] = true
		named[readOf{e.To, e.Key}] = true
	}
	edges := func(es []polygraph.Edge) {
		for _, e := range es {
			edge(e)
		}
	}
	edges(res.Cycle)
	for _, c := range res.Core {
		edges(c)
	}
	if c := res.Conflict; c != nil {
		edges(c.Constraint.Either)
		edges(c.Constraint.Or)
		edges(c.EitherCycle)
		edges(c.OrCycle)
	}
	for _, a := range res.Anomalies {
		named[readOf{a.Txn, a.Key}] = true
		named[readOf{a.Writer, a.Key}] = true
		named[readOf{a.OtherTxn, a.Key}] = true
	}
	h := r.History
	var out []resolve.Pick
	for _, p := range picks {
		op := h.Ops[p.Op]
		if named[readOf{readerOf(h, p.Op), op.Key}] {
			out = append(out, p)
		}
	}
	return out
}

// readerOf returns the transaction of operation op.
func readerOf(h *history.History, op int32) int32 {
	t, _ := slices.BinarySearchFunc(h.Txns, op, func(tx history.Txn, op int32) int {
		return cmp.Compare(tx.OpEnd-1, op)
	})
	return int32(t)
}

// likelyWriters returns, for each choice of cs (r's), the index of the writer it
// most likely read from: the latest candidate before the reader in an
// order of the transactions that respects session order and the reads
// with one writer (by start time, where recorded, else by place in the
// history); the earliest candidate when none comes before.
func likelyWriters(r *resolve.Resolution, cs []resolve.Choice) []int {
	h := r.History
	n := len(h.Txns)
	pos := topoPositions(r)
	prefer := make([]int, len(cs))
	for i, c := range cs {
		best, bestPos := -1, int64(-1)
		first, firstPos := 0, int64(1<<62)
		at := int64(pos[c.Reader])
		for j, w := range c.Writers {
			p := int64(-1) // T0 comes first
			if int(w) < n {
				p = int64(pos[w])
			}
			if p < at && p > bestPos {
				best, bestPos = j, p
			}
			if p < firstPos {
				first, firstPos = j, p
			}
		}
		if best < 0 {
			best = first
		}
		prefer[i] = best
	}
	return prefer
}

// latestWriters returns, for each choice of edges, the index of the
// writer that comes last before the reader in order, a topological order
// of the known edges (the first writer when none does; each choice's
// first when order is nil): the writer a serial execution in that order
// would have read from, were it to write the value read.
//
// Where the reader and its writers have times, the writer that ended last
// before the reader ended comes first: a database commits in about the
// order its transactions end.
func latestWriters(h *history.History, edges []polygraph.ChoiceEdges, order []int32) []int {
	prefer := make([]int, len(edges))
	if order == nil {
		return prefer
	}
	pos := make([]int32, len(order))
	for i, u := range order {
		pos[u] = int32(i)
	}
	n := int32(len(h.Txns))
	for i, ce := range edges {
		best, bestPos := -1, int32(-1)
		if r := &h.Txns[ce.Choice.Reader]; r.HasTime() {
			bestEnd := int64(math.MinInt64)
			for j, o := range ce.Options {
				if o.Writer >= n {
					if best < 0 {
						best = j // the initial state, before every end
					}
					continue
				}
				if w := &h.Txns[o.Writer]; w.HasTime() && w.End <= r.End && w.End > bestEnd {
					best, bestEnd = j, w.End
				}
			}
		}
		if best < 0 {
			best = 0
			at := pos[ce.Choice.Reader]
			for j, o := range ce.Options {
				if p := pos[o.Writer]; p < at && p > bestPos {
					best, bestPos = j, p
				}
			}
		}
		prefer[i] = best
	}
	return prefer
}

// topoPositions places every transaction of r's history in an order that
// respects session order and the reads with one writer, ties broken by
// start time, then place in the history; transactions on a cycle go last,
// in history order.
func topoPositions(r *resolve.Resolution) []int32 {
	h := r.History
	n := len(h.Txns)
	indeg := make([]int32, n)
	succStart := make([]int32, n+1)
	type edge struct{ from, to int32 }
	var edges []edge
	for _, sess := range h.Sessions {
		for i := 1; i < len(sess); i++ {
			edges = append(edges, edge{int32(sess[i-1]), int32(sess[i])})
		}
	}
	for _, rd := range r.Reads {
		if int(rd.Writer) < n && rd.Writer != rd.Reader {
			edges = append(edges, edge{rd.Writer, rd.Reader})
		}
	}
	for _, e := range edges {
		succStart[e.from+1]++
		indeg[e.to]++
	}
	for i := range n {
		succStart[i+1] += succStart[i]
	}
	succ := make([]int32, len(edges))
	fill := slices.Clone(succStart[:n])
	for _, e := range edges {
		succ[fill[e.from]] = e.to
		fill[e.from]++
	}
	key := func(t int32) int64 {
		if tx := &h.Txns[t]; tx.Start != history.NoTime {
			return tx.Start
		}
		return int64(t)
	}
	q := &txnHeap{key: key}
	for t := range n {
		if indeg[t] == 0 {
			q.ts = append(q.ts, int32(t))
		}
	}
	heap.Init(q)
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	next := int32(0)
	for q.Len() > 0 {
		t := heap.Pop(q).(int32)
		pos[t] = next
		next++
		for _, u := range succ[succStart[t]:succStart[t+1]] {
			if indeg[u]--; indeg[u] == 0 {
				heap.Push(q, u)
			}
		}
	}
	for t := range pos {
		if pos[t] < 0 {
			pos[t] = next
			next++
		}
	}
	return pos
}

// txnHeap is a heap of transactions by key.
type txnHeap struct {
	ts  []int32
	key func(int32) int64
}

func (q *txnHeap) Len() int { return len(q.ts) }
func (q *txnHeap) Less(i, j int) bool {
	a, b := q.key(q.ts[i]), q.key(q.ts[j])
	return a < b || a == b && q.ts[i] < q.ts[j]
}
func (q *txnHeap) Swap(i, j int) { q.ts[i], q.ts[j] = q.ts[j], q.ts[i] }
func (q *txnHeap) Push(x any)    { q.ts = append(q.ts, x.(int32)) }
func (q *txnHeap) Pop() any {
	t := q.ts[len(q.ts)-1]
	q.ts = q.ts[:len(q.ts)-1]
	return t
}
