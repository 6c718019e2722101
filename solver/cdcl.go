package solver

// The cdcl engine: a conflict-driven clause-learning SAT solver whose only
// constraint is the acyclicity theory, checked inside the search (the
// approach of MonoSAT and of VeriStrong's acyclic MiniSat). Literal l
// becoming true adds the guarded edges it labels to the theory's graph,
// whose topological order is kept up to date (Pearce-Kelly, the lazy
// engine's session); an edge that would close a cycle makes that cycle's
// literals, negated, a conflict clause at once, analysed to its first
// unique implication point and learned. Backtracking only removes edges,
// which never breaks the order. Decisions follow VSIDS activity, first in
// the topological order of the hinted graph; a variable's first value is
// the hint, and later its last value (phase saving); restarts follow the
// Luby sequence and keep the leading decisions they would make again;
// learned clauses are reduced by literal block distance and activity.
//
// Most conflicts on a valid history's problem are local (one wrong hint
// closes a short cycle) while the trail holds every variable, so undoing
// levels is what costs: a backjump of more than chronoT levels backtracks
// chronologically instead (Nadel and Ryvchin, SAT 2018), and a cycle
// closed by the current decision alone flips that decision (see flip).

import (
	"context"
	"slices"

	"github.com/isocheck/isocheck/progress"
)

// clit is a literal inside the engine: 2*v+1 for the negation of
// 0-based variable v, 2*v for v.
type clit = int32

func toClit(l Lit) clit {
	if l < 0 {
		return clit(2*(-l-1) + 1)
	}
	return clit(2 * (l - 1))
}

type cclause struct {
	lits    []clit
	act     float32
	lbd     int32
	learnt  bool
	deleted bool
}

type cwatch struct {
	cref    int32
	blocker clit
}

type cdcl struct {
	p    *Problem
	th   *session
	m    *progress.Meter
	tune cdclTuning
	nv   int

	val    []int8 // per variable: 0 open, 1 true, -1 false
	level  []int32
	reason []int32 // clause index, -1 for a decision or a unit
	phase  []bool
	act    []float64
	seen   []bool

	heap    []int32 // variables, by activity
	heapIdx []int32 // position in heap, -1 when not in it

	watches  [][]cwatch
	litEdges [][]int32 // per literal, the guarded edges it labels

	clauses []cclause
	learnts int

	trail    []clit
	trailLim []int32
	qhead    int
	thead    int

	varInc, claInc float64

	// Cycles behind theory conflicts and propagations, for the core.
	cycles    []Cycle
	cycClause [][]Lit
	cycSeen   map[string]bool

	// chronoT is how many levels a backjump may undo; beyond, it
	// backtracks one level only.
	chronoT int32

	conflicts, decisions, inserts, restarts int64
	reductions, deletedClauses              int
	flips                                   int64
	// theoryAt is the trail position of the literal whose edge closed
	// the last conflict's cycle, or -1 when unit propagation found it.
	theoryAt                int
	belowLevels, jumpLevels int64
	analyzeBuf, levelBuf    []clit
	levelSeen               []int32
	levelStamp              int32
}

// cdclTuning holds the cdcl engine's knobs; tests change them to reach
// paths the defaults rarely take.
type cdclTuning struct {
	// chronoT: a backjump of more levels than this backtracks one level
	// (chronological backtracking).
	chronoT int32
	// maxLearnts, when positive, is the first bound on learned clauses
	// before a reduction, which then deletes even short clauses.
	maxLearnts int
	// restartFirst, when positive, is the unit of the Luby restarts.
	restartFirst float64
}

// defaultCDCL is the tuning solveCDCL uses.
var defaultCDCL = cdclTuning{chronoT: 100}

// solveCDCL answers p with the cdcl engine. Result.Rounds counts
// conflicts and Result.Clauses the distinct cycles that caused them.
func solveCDCL(ctx context.Context, p *Problem) (*Result, error) {
	return solveCDCLTuned(ctx, p, defaultCDCL)
}

// solveCDCLTuned is solveCDCL with the knobs of tune.
func solveCDCLTuned(ctx context.Context, p *Problem, tune cdclTuning) (*Result, error) {
	m := progress.Start(ctx, "solve", 0, "conflicts")
	th, err := newSession(p)
	if err != nil {
		return nil, err
	}
	s := newCDCL(p, th, m, tune)
	// The order agrees at once with the edges the hint chooses, so the
	// first descent adds them cheaply.
	th.seedOrder(s.phase)
	s.initOrder()
	res := &Result{}
	sat, err := s.search()
	res.Rounds = int(s.conflicts)
	res.Clauses = len(s.cycles)
	if err != nil {
		return res, err
	}
	if sat {
		res.Sat = true
		res.Model = make([]bool, p.Vars)
		for v := range res.Model {
			res.Model[v] = s.val[v] > 0
		}
		return res, nil
	}
	res.Core = core(ctx, p.Vars, nil, s.cycClause, s.cycles)
	return res, nil
}

func newCDCL(p *Problem, th *session, m *progress.Meter, tune cdclTuning) *cdcl {
	n := p.Vars
	s := &cdcl{
		p: p, th: th, m: m, nv: n,
		val:       make([]int8, n),
		level:     make([]int32, n),
		reason:    make([]int32, n),
		phase:     make([]bool, n),
		act:       make([]float64, n),
		seen:      make([]bool, n),
		heapIdx:   make([]int32, n),
		watches:   make([][]cwatch, 2*n),
		litEdges:  make([][]int32, 2*n),
		varInc:    1,
		claInc:    1,
		cycSeen:   make(map[string]bool),
		levelSeen: make([]int32, n+1),
		chronoT:   tune.chronoT,
		tune:      tune,
	}
	if p.Hint != nil {
		copy(s.phase, p.Hint)
	}
	for i, c := range p.Cond {
		l := toClit(c.Lit)
		s.litEdges[l] = append(s.litEdges[l], int32(i))
	}
	for v := 0; v < n; v++ {
		s.reason[v] = -1
		s.heapIdx[v] = -1
	}
	return s
}

// initOrder sets the first order of decisions, before any conflict has
// told which variables matter, by a tiny initial activity: variables
// whose edges come early in the theory's topological order first. A
// cycle closed by a wrong hint runs between nearby nodes of the order,
// mostly, so its literals are decided at nearby levels and backjumps stay
// short.
func (s *cdcl) initOrder() {
	n := len(s.th.ord)
	for v := 0; v < s.nv; v++ {
		first := n
		for _, l := range []clit{clit(2 * v), clit(2*v + 1)} {
			for _, e := range s.litEdges[l] {
				c := s.p.Cond[e]
				first = min(first, int(s.th.ord[c.From]), int(s.th.ord[c.To]))
			}
		}
		s.act[v] = 1e-12 * float64(n-first)
		s.heapInsert(int32(v))
	}
}

func (s *cdcl) value(l clit) int8 {
	v := s.val[l>>1]
	if l&1 != 0 {
		return -v
	}
	return v
}

func (s *cdcl) decisionLevel() int32 { return int32(len(s.trailLim)) }

func (s *cdcl) enqueue(l clit, from int32, lvl int32) {
	v := l >> 1
	if l&1 != 0 {
		s.val[v] = -1
	} else {
		s.val[v] = 1
	}
	s.level[v] = lvl
	s.reason[v] = from
	s.trail = append(s.trail, l)
}

// cancelUntil undoes every assignment above level lvl, removing the edges
// they added. With chronological backtracking the trail is not sorted by
// level: assignments of lvl or below that come after its end stay, in
// their order, and are propagated again (which finds their clauses
// and edges done already).
func (s *cdcl) cancelUntil(lvl int32) {
	if s.decisionLevel() <= lvl {
		return
	}
	lim := int(s.trailLim[lvl])
	// Remove the edges latest first: the order stays valid either way.
	for c := len(s.trail) - 1; c >= lim; c-- {
		l := s.trail[c]
		v := l >> 1
		if s.level[v] <= lvl {
			continue
		}
		for _, e := range s.litEdges[l] {
			if s.th.active[e] {
				s.th.remove(e)
			}
		}
	}
	j := lim
	for c := lim; c < len(s.trail); c++ {
		l := s.trail[c]
		v := l >> 1
		if s.level[v] <= lvl {
			s.trail[j] = l
			j++
			continue
		}
		s.phase[v] = l&1 == 0
		s.val[v] = 0
		s.reason[v] = -1
		if s.heapIdx[v] < 0 {
			s.heapInsert(v)
		}
	}
	s.trail = s.trail[:j]
	s.trailLim = s.trailLim[:lvl]
	s.qhead = min(s.qhead, s.thead, lim)
	s.thead = s.qhead
}

// propagate runs unit propagation and the theory to a fixpoint. It
// returns the literals of a clause that is false, or nil.
func (s *cdcl) propagate() ([]clit, error) {
	for {
		if confl := s.bcp(); confl != nil {
			s.theoryAt = -1
			return confl, nil
		}
		if s.thead >= len(s.trail) {
			return nil, nil
		}
		l := s.trail[s.thead]
		for _, e := range s.litEdges[l] {
			if s.th.active[e] {
				continue // added before the trail was cut
			}
			s.inserts++
			if s.inserts&255 == 0 {
				if err := s.m.Err(); err != nil {
					return nil, gaveUp(s.m)
				}
			}
			if cyc := s.th.insert(e); cyc != nil {
				// thead stays: the literal's other edges are
				// added if it outlives the backtrack.
				s.theoryAt = s.thead
				return s.cycleClause(cyc), nil
			}
		}
		s.thead++
	}
}

// cycleClause returns the clause forbidding cycle c, every literal of
// which is false now, and records the cycle for the core.
func (s *cdcl) cycleClause(c Cycle) []clit {
	clause := s.th.blockingClause(c)
	k := clauseKey(clause)
	if !s.cycSeen[k] {
		s.cycSeen[k] = true
		s.cycles = append(s.cycles, c)
		s.cycClause = append(s.cycClause, clause)
	}
	out := make([]clit, len(clause))
	for i, l := range clause {
		out[i] = toClit(l)
	}
	return out
}

func (s *cdcl) bcp() []clit {
	for s.qhead < len(s.trail) {
		p := s.trail[s.qhead]
		s.qhead++
		falseLit := p ^ 1
		ws := s.watches[falseLit]
		i, j := 0, 0
		for i < len(ws) {
			w := ws[i]
			if s.value(w.blocker) == 1 {
				ws[j] = w
				i++
				j++
				continue
			}
			c := &s.clauses[w.cref]
			lits := c.lits
			if lits[0] == falseLit {
				lits[0], lits[1] = lits[1], falseLit
			}
			i++
			first := lits[0]
			nw := cwatch{w.cref, first}
			if first != w.blocker && s.value(first) == 1 {
				ws[j] = nw
				j++
				continue
			}
			moved := false
			for k := 2; k < len(lits); k++ {
				if s.value(lits[k]) != -1 {
					lits[1], lits[k] = lits[k], falseLit
					s.watches[lits[1]] = append(s.watches[lits[1]], nw)
					moved = true
					break
				}
			}
			if moved {
				continue
			}
			ws[j] = nw
			j++
			if s.value(first) == -1 {
				for i < len(ws) {
					ws[j] = ws[i]
					i++
					j++
				}
				s.watches[falseLit] = ws[:j]
				s.qhead-- // p is visited again if it outlives the backtrack
				if c.learnt {
					s.bumpClause(c)
				}
				return lits
			}
			// With chronological backtracking the literal's level
			// is its reason's highest, perhaps below the current.
			lvl := int32(0)
			for _, q := range lits[1:] {
				lvl = max(lvl, s.level[q>>1])
			}
			s.enqueue(first, w.cref, lvl)
		}
		s.watches[falseLit] = ws[:j]
	}
	return nil
}

// analyze derives the first-UIP clause of the conflict confl, its
// asserting literal first and a literal of the highest other level
// second; it returns the clause and the level to go back to.
func (s *cdcl) analyze(confl []clit) ([]clit, int32) {
	out := append(s.analyzeBuf[:0], -1)
	pathC := 0
	p := clit(-1)
	idx := len(s.trail) - 1
	dl := s.decisionLevel()
	lits := confl
	for {
		start := 0
		if p != -1 {
			start = 1 // lits[0] is p, which the reason implied
		}
		for _, q := range lits[start:] {
			v := q >> 1
			if s.seen[v] || s.level[v] == 0 {
				continue
			}
			s.bumpVar(v)
			s.seen[v] = true
			if s.level[v] >= dl {
				pathC++
			} else {
				out = append(out, q)
			}
		}
		for v := s.trail[idx] >> 1; !s.seen[v] || s.level[v] < dl; v = s.trail[idx] >> 1 {
			idx--
		}
		p = s.trail[idx]
		idx--
		s.seen[p>>1] = false
		pathC--
		if pathC <= 0 {
			break
		}
		r := s.reason[p>>1]
		c := &s.clauses[r]
		if c.learnt {
			s.bumpClause(c)
		}
		lits = c.lits
	}
	out[0] = p ^ 1
	s.levelBuf = append(s.levelBuf[:0], out[1:]...)
	// Drop literals implied by others of the clause (MiniSat's basic
	// minimization).
	j := 1
	for i := 1; i < len(out); i++ {
		v := out[i] >> 1
		r := s.reason[v]
		keep := r < 0
		if !keep {
			for _, q := range s.clauses[r].lits[1:] {
				if u := q >> 1; !s.seen[u] && s.level[u] > 0 {
					keep = true
					break
				}
			}
		}
		if keep {
			out[j] = out[i]
			j++
		}
	}
	for _, q := range s.levelBuf {
		s.seen[q>>1] = false
	}
	out = out[:j]
	bt := int32(0)
	if len(out) > 1 {
		maxI := 1
		for i := 2; i < len(out); i++ {
			if s.level[out[i]>>1] > s.level[out[maxI]>>1] {
				maxI = i
			}
		}
		out[1], out[maxI] = out[maxI], out[1]
		bt = s.level[out[1]>>1]
	}
	s.analyzeBuf = out
	return slices.Clone(out), bt
}

func (s *cdcl) lbd(lits []clit) int32 {
	s.levelStamp++
	n := int32(0)
	for _, l := range lits {
		lv := s.level[l>>1]
		if s.levelSeen[lv] != s.levelStamp {
			s.levelSeen[lv] = s.levelStamp
			n++
		}
	}
	return n
}

func (s *cdcl) addLearnt(lits []clit) int32 {
	cref := int32(len(s.clauses))
	s.clauses = append(s.clauses, cclause{lits: lits, learnt: true, lbd: s.lbd(lits), act: float32(s.claInc)})
	s.learnts++
	s.watches[lits[0]] = append(s.watches[lits[0]], cwatch{cref, lits[1]})
	s.watches[lits[1]] = append(s.watches[lits[1]], cwatch{cref, lits[0]})
	return cref
}

func (s *cdcl) bumpVar(v int32) {
	s.act[v] += s.varInc
	if s.act[v] > 1e100 {
		for i := range s.act {
			s.act[i] *= 1e-100
		}
		s.varInc *= 1e-100
	}
	if s.heapIdx[v] >= 0 {
		s.heapUp(s.heapIdx[v])
	}
}

func (s *cdcl) bumpClause(c *cclause) {
	c.act += float32(s.claInc)
	if c.act > 1e20 {
		for i := range s.clauses {
			s.clauses[i].act *= 1e-20
		}
		s.claInc *= 1e-20
	}
}

// reduceDB deletes about half of the learned clauses: those of literal
// block distance above 2, least active first, that are no reason now.
func (s *cdcl) reduceDB() {
	var cand []int32
	for i := range s.clauses {
		c := &s.clauses[i]
		if !c.learnt || c.deleted {
			continue
		}
		// Tests (tune.maxLearnts) delete even the short clauses.
		if (c.lbd <= 2 || len(c.lits) <= 2) && s.tune.maxLearnts == 0 {
			continue
		}
		if v := c.lits[0] >> 1; s.reason[v] == int32(i) && s.value(c.lits[0]) == 1 {
			continue
		}
		cand = append(cand, int32(i))
	}
	slices.SortFunc(cand, func(a, b int32) int {
		ca, cb := &s.clauses[a], &s.clauses[b]
		if ca.lbd != cb.lbd {
			return int(cb.lbd - ca.lbd)
		}
		switch {
		case ca.act < cb.act:
			return -1
		case ca.act > cb.act:
			return 1
		}
		return 0
	})
	s.reductions++
	s.deletedClauses += len(cand) / 2
	for _, i := range cand[:len(cand)/2] {
		s.clauses[i].deleted = true
		s.clauses[i].lits = nil
		s.learnts--
	}
	for l := range s.watches {
		ws := s.watches[l]
		j := 0
		for _, w := range ws {
			if !s.clauses[w.cref].deleted {
				ws[j] = w
				j++
			}
		}
		s.watches[l] = ws[:j]
	}
}

// luby returns the i-th (from 0) element of the Luby sequence of base y.
func luby(y float64, i int) float64 {
	size, seq := 1, 0
	for size < i+1 {
		seq++
		size = 2*size + 1
	}
	for size-1 != i {
		size = (size - 1) >> 1
		seq--
		i = i % size
	}
	r := 1.0
	for ; seq > 0; seq-- {
		r *= y
	}
	return r
}

// search runs CDCL to an answer: true with every variable assigned and
// the chosen graph acyclic, or false when a conflict needs no decision.
func (s *cdcl) search() (bool, error) {
	restartFirst := 100.0
	maxLearnts := 4000 + s.nv/2
	if s.tune.maxLearnts > 0 {
		maxLearnts = s.tune.maxLearnts
	}
	restarts := 0
	if s.tune.restartFirst > 0 {
		restartFirst = s.tune.restartFirst
	}
	budget := int64(luby(2, restarts) * restartFirst)
	var sinceRestart int64
	for {
		confl, err := s.propagate()
		if err != nil {
			return false, err
		}
		if confl != nil {
			s.conflicts++
			sinceRestart++
			if err := s.m.Add(1); err != nil {
				return false, gaveUp(s.m)
			}
			// The conflict's level is its clause's highest: with
			// chronological backtracking it can be below the
			// current one. Analysis starts there.
			cl := int32(0)
			for _, q := range confl {
				cl = max(cl, s.level[q>>1])
			}
			if cl == 0 {
				return false, nil
			}
			if s.flip(confl) {
				continue
			}
			s.belowLevels += int64(s.decisionLevel() - cl)
			s.cancelUntil(cl)
			learnt, bt := s.analyze(confl)
			// Backjump, unless that would undo many levels whose
			// assignments will mostly be made again (chronological
			// backtracking, Nadel and Ryvchin 2018): then undo only
			// the conflict's level, and imply the learned clause's
			// literal at its own level, out of order on the trail.
			s.jumpLevels += int64(min(s.decisionLevel()-bt, s.chronoT+1))
			if s.decisionLevel()-bt > s.chronoT {
				s.cancelUntil(s.decisionLevel() - 1)
			} else {
				s.cancelUntil(bt)
			}
			if len(learnt) == 1 {
				s.enqueue(learnt[0], -1, 0)
			} else {
				s.enqueue(learnt[0], s.addLearnt(learnt), bt)
			}
			s.varInc /= 0.95
			s.claInc /= 0.999
			continue
		}
		if sinceRestart >= budget {
			restarts++
			s.restarts++
			budget = int64(luby(2, restarts) * restartFirst)
			sinceRestart = 0
			s.cancelUntil(s.reusedLevels())
		}
		if s.learnts-len(s.trail) >= maxLearnts || s.tune.maxLearnts > 0 && s.learnts >= maxLearnts {
			s.reduceDB()
			maxLearnts += maxLearnts / 10
		}
		v := s.pickBranch()
		if v < 0 {
			return true, nil
		}
		s.decisions++
		if s.decisions&1023 == 0 {
			if err := s.m.Err(); err != nil {
				return false, gaveUp(s.m)
			}
		}
		s.trailLim = append(s.trailLim, int32(len(s.trail)))
		l := 2 * v
		if !s.phase[v] {
			l++
		}
		s.enqueue(l, -1, s.decisionLevel())
	}
}

// flip handles a conflict whose cycle the current level's decision
// closed, alone on its level: rather than learn the cycle's clause and
// imply the decision's negation at the clause's next highest level (far
// below, often, which puts it out of order on the trail, where its edges
// close cycles with levels in between and undo them all), it replaces the
// decision by its negation, as a decision on the same level, and keeps the
// cycle's clause. Phase saving remembers the negation. The clause is new
// (unit propagation would have found it otherwise), so flips are finite.
func (s *cdcl) flip(confl []clit) bool {
	dl := s.decisionLevel()
	if s.theoryAt < 0 || dl == 0 || len(confl) < 2 || s.theoryAt != int(s.trailLim[dl-1]) {
		return false
	}
	dec := s.trail[s.theoryAt]
	at := -1
	for i, q := range confl {
		if q == dec^1 {
			at = i
		} else if s.level[q>>1] >= dl {
			return false
		}
	}
	if at < 0 {
		return false
	}
	s.flips++
	lits := slices.Clone(confl)
	lits[0], lits[at] = lits[at], lits[0]
	maxI := 1
	for i := 2; i < len(lits); i++ {
		if s.level[lits[i]>>1] > s.level[lits[maxI]>>1] {
			maxI = i
		}
	}
	lits[1], lits[maxI] = lits[maxI], lits[1]
	for _, q := range lits {
		s.bumpVar(q >> 1)
	}
	s.cancelUntil(dl - 1)
	s.addLearnt(lits)
	s.trailLim = append(s.trailLim, int32(len(s.trail)))
	s.enqueue(dec^1, -1, dl)
	return true
}

// reusedLevels is the level a restart goes back to: the decisions below
// it are those the restart would make again first, as they are more active
// than any open variable (reusing the trail, van der Tak, Ramos and Heule
// 2011). A restart of a long trail then costs only the levels it changes.
func (s *cdcl) reusedLevels() int32 {
	for len(s.heap) > 0 && s.val[s.heap[0]] != 0 {
		s.heapPop()
	}
	if len(s.heap) == 0 {
		return 0
	}
	next := s.heap[0]
	for k := int32(0); k < s.decisionLevel(); k++ {
		if d := s.trail[s.trailLim[k]] >> 1; s.heapLess(next, d) {
			return k
		}
	}
	return s.decisionLevel()
}

func (s *cdcl) pickBranch() int32 {
	for len(s.heap) > 0 {
		v := s.heapPop()
		if s.val[v] == 0 {
			return v
		}
	}
	return -1
}

// The decision heap: a binary max-heap of variables by activity, ties to
// the lower variable.

func (s *cdcl) heapLess(a, b int32) bool {
	if s.act[a] != s.act[b] {
		return s.act[a] > s.act[b]
	}
	return a < b
}

func (s *cdcl) heapInsert(v int32) {
	s.heapIdx[v] = int32(len(s.heap))
	s.heap = append(s.heap, v)
	s.heapUp(s.heapIdx[v])
}

func (s *cdcl) heapUp(i int32) {
	v := s.heap[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !s.heapLess(v, s.heap[parent]) {
			break
		}
		s.heap[i] = s.heap[parent]
		s.heapIdx[s.heap[i]] = i
		i = parent
	}
	s.heap[i] = v
	s.heapIdx[v] = i
}

func (s *cdcl) heapPop() int32 {
	top := s.heap[0]
	last := s.heap[len(s.heap)-1]
	s.heap = s.heap[:len(s.heap)-1]
	s.heapIdx[top] = -1
	if len(s.heap) == 0 {
		return top
	}
	n := int32(len(s.heap))
	i := int32(0)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && s.heapLess(s.heap[c+1], s.heap[c]) {
			c++
		}
		if !s.heapLess(s.heap[c], last) {
			break
		}
		s.heap[i] = s.heap[c]
		s.heapIdx[s.heap[i]] = i
		i = c
	}
	s.heap[i] = last
	s.heapIdx[last] = i
	return top
}
