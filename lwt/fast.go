package lwt

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
)

// noOp marks the initial value's writer, which has no operation.
const noOp int32 = -1

// chainState is the fast path's view of one register (see the package
// comment, steps 1–5). Versions are dense ids; version 0 is the initial
// value. Operation ids are indices into ops.
type chainState struct {
	ops      []Op
	init     int64
	version  map[int64]int32 // value -> version id
	value    []int64         // version id -> value
	writer   []int32         // version id -> writing operation, noOp for the initial value
	next     []int32         // version id -> the version a CAS installed right after it, or -1
	readers  [][]int32       // version id -> Ok reads of it
	fails    []int32         // failed CAS
	setAside bool            // some Info write or CAS was set aside (unobserved)
	// pos is a version's place in the chosen version order.
	pos   []int32
	order []int32 // versions in the chosen version order
	w     *watch
}

// watch looks at a meter every progress.Every calls of tick, which
// reports whether to go on; err is the meter's error once it stops.
type watch struct {
	m   *progress.Meter
	n   int
	err error
}

func (w *watch) tick() bool {
	if w.n++; w.n >= progress.Every {
		w.n = 0
		w.err = w.m.Err()
	}
	return w.err == nil
}

// fastCheck runs the fast path on one register. exact is false when the
// answer must come from the exact search instead (the package comment says
// when). It stops with m's error once m's context ends.
func fastCheck(m *progress.Meter, ops []Op, idx []int32, init int64) (viol *Violation, exact bool, err error) {
	w := &watch{m: m}
	viol, exact = fastCheckWatch(w, ops, idx, init)
	if w.err != nil {
		return nil, false, w.err
	}
	return viol, exact, nil
}

// fastCheckWatch is fastCheck; when w stops it returns early, with any
// answer.
func fastCheckWatch(w *watch, ops []Op, idx []int32, init int64) (viol *Violation, exact bool) {
	s := &chainState{ops: ops, init: init, w: w}
	// Step 1: writers, unique values, observed Info operations.
	writerOf := make(map[int64]int32, len(idx))
	nInfo := 0
	for _, i := range idx {
		if !w.tick() {
			return nil, false
		}
		o := &ops[i]
		v, ok := writes(o)
		if !ok {
			if o.Kind == register.CAS {
				s.fails = append(s.fails, i)
			}
			continue
		}
		if v == init || (o.Kind == register.CAS && o.Old == o.New) {
			return nil, false
		}
		if _, dup := writerOf[v]; dup {
			return nil, false
		}
		writerOf[v] = i
		if o.Outcome == register.Info {
			nInfo++
		}
	}
	observed := map[int64]bool{}
	var work []int64
	mark := func(v int64) {
		if w, ok := writerOf[v]; ok && ops[w].Outcome == register.Info && !observed[v] {
			observed[v] = true
			work = append(work, v)
		}
	}
	for _, i := range idx {
		if !w.tick() {
			return nil, false
		}
		o := &ops[i]
		if o.Outcome != register.OK {
			continue
		}
		switch o.Kind {
		case register.Read:
			mark(o.Value)
		case register.CAS:
			mark(o.Old)
		}
	}
	for len(work) > 0 {
		if !w.tick() {
			return nil, false
		}
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if w := &ops[writerOf[v]]; w.Kind == register.CAS {
			mark(w.Old)
		}
	}
	s.setAside = len(observed) < nInfo

	// Versions: the initial value, then every writer that took effect, in
	// the order of idx (deterministic).
	s.version = make(map[int64]int32, len(writerOf)+1)
	s.addVersion(init, noOp)
	for _, i := range idx {
		if !w.tick() {
			return nil, false
		}
		o := &ops[i]
		v, ok := writes(o)
		if !ok || (o.Outcome == register.Info && !observed[v]) {
			continue
		}
		s.addVersion(v, i)
	}

	// Step 2: CAS links, and reads of values nobody wrote.
	for k := 1; k < len(s.value); k++ {
		if !w.tick() {
			return nil, false
		}
		w := &ops[s.writer[k]]
		if w.Kind != register.CAS {
			continue
		}
		a, ok := s.version[w.Old]
		if !ok {
			return s.thinAir(s.writer[k], w.Old), true
		}
		if prev := s.next[a]; prev >= 0 {
			return s.lostUpdate(a, s.writer[prev], s.writer[k]), true
		}
		s.next[a] = int32(k)
	}
	s.readers = make([][]int32, len(s.value))
	for _, i := range idx {
		if !w.tick() {
			return nil, false
		}
		o := &ops[i]
		if o.Kind != register.Read || o.Outcome != register.OK {
			continue
		}
		k, ok := s.version[o.Value]
		if !ok {
			return s.thinAir(i, o.Value), true
		}
		s.readers[k] = append(s.readers[k], i)
	}

	// Chains: from the initial value and from each blind write.
	var chains [][]int32
	visited := 0
	for k := range s.value {
		if !w.tick() {
			return nil, false
		}
		if k != 0 && ops[s.writer[k]].Kind != register.Write {
			continue
		}
		var c []int32
		for v := int32(k); v >= 0; v = s.next[v] {
			c = append(c, v)
		}
		visited += len(c)
		chains = append(chains, c)
	}
	if visited < len(s.value) {
		return s.cycle(chains), true
	}

	// Step 3: each chain on its own.
	for _, c := range chains {
		if v := s.checkChain(c); v != nil || w.err != nil {
			return v, true
		}
	}

	// Step 4: an order of the chains.
	if v := s.orderChains(chains); v != nil || w.err != nil {
		return v, true
	}

	// Step 5: failed CAS.
	if v := s.placeFails(); v != nil && w.err == nil {
		// The initial value's chain is first in every order, so with at
		// most one other chain the order is forced.
		if s.setAside || len(chains) > 2 {
			return nil, false
		}
		return v, true
	}
	return nil, true
}

func (s *chainState) addVersion(v int64, w int32) {
	s.version[v] = int32(len(s.value))
	s.value = append(s.value, v)
	s.writer = append(s.writer, w)
	s.next = append(s.next, -1)
}

// groupOps calls f on the operations of version k's writer group (w true)
// or reader group (w false).
func (s *chainState) forGroup(k int32, w bool, f func(i int32)) {
	if w {
		if s.writer[k] != noOp {
			f(s.writer[k])
		}
		return
	}
	for _, i := range s.readers[k] {
		f(i)
	}
}

// checkChain is Algorithm 2, step 2, over the groups of one chain: writer,
// readers, next writer, ... No operation may be invoked after an operation
// of a later group returned.
func (s *chainState) checkChain(c []int32) *Violation {
	minRet, arg := Never, noOp
	for j := len(c) - 1; j >= 0; j-- {
		if !s.w.tick() {
			return nil
		}
		for _, w := range []bool{false, true} {
			var bad, badArg int32 = noOp, noOp
			s.forGroup(c[j], w, func(i int32) {
				if bad == noOp && s.ops[i].Call > minRet {
					bad, badArg = i, arg
				}
			})
			if bad != noOp {
				return s.realTime(bad, badArg)
			}
			s.forGroup(c[j], w, func(i int32) {
				if r := ret(&s.ops[i]); r < minRet {
					minRet, arg = r, i
				}
			})
		}
	}
	return nil
}

// span is the zone of a chain: the earliest return (a) and the latest call
// (b) among its operations, with the operations that attain them.
type span struct {
	a, b      int64
	aOp, bOp  int32
	chain     []int32
	isInitial bool
	headCall  int64
}

func (s *chainState) spanOf(c []int32, initial bool) span {
	sp := span{a: Never, b: math.MinInt64, aOp: noOp, bOp: noOp, chain: c, isInitial: initial}
	for _, k := range c {
		for _, w := range []bool{true, false} {
			s.forGroup(k, w, func(i int32) {
				o := &s.ops[i]
				if r := ret(o); r < sp.a {
					sp.a, sp.aOp = r, i
				}
				if o.Call > sp.b {
					sp.b, sp.bOp = o.Call, i
				}
			})
		}
	}
	if !initial {
		sp.headCall = s.ops[s.writer[c[0]]].Call
	}
	return sp
}

// orderChains picks the version order: the initial value's chain, then the
// others sorted by the lower end of their zone (backward zones first on
// ties). That order fits real time iff some order does (package comment,
// step 4); when it does not, a pair of chains that fit in neither order is
// reported.
func (s *chainState) orderChains(chains [][]int32) *Violation {
	spans := make([]span, len(chains))
	for j, c := range chains {
		if !s.w.tick() {
			return nil
		}
		spans[j] = s.spanOf(c, j == 0)
	}
	rest := spans[1:]
	key := func(sp *span) int64 { return min(sp.a, sp.b) }
	sort.SliceStable(rest, func(i, j int) bool {
		ki, kj := key(&rest[i]), key(&rest[j])
		if ki != kj {
			return ki < kj
		}
		bi, bj := rest[i].a >= rest[i].b, rest[j].a >= rest[j].b
		if bi != bj {
			return bi
		}
		return rest[i].headCall < rest[j].headCall
	})
	maxB, arg := spans[0].b, 0
	for j := 1; j < len(spans); j++ {
		if spans[j].a < maxB {
			return s.chainConflict(spans, arg, j)
		}
		if spans[j].b > maxB {
			maxB, arg = spans[j].b, j
		}
	}
	s.pos = make([]int32, len(s.value))
	s.order = make([]int32, 0, len(s.value))
	for _, sp := range spans {
		for _, k := range sp.chain {
			s.pos[k] = int32(len(s.order))
			s.order = append(s.order, k)
		}
	}
	return nil
}

// chainConflict explains why no order of the chains fits real time, given
// that spans[j] cannot come after spans[i] in the sorted order.
func (s *chainState) chainConflict(spans []span, i, j int) *Violation {
	fits := func(x, y *span) bool { return y.a >= x.b } // x entirely before y
	if !spans[i].isInitial && fits(&spans[j], &spans[i]) {
		// Find a pair that fits in neither order; one exists (step 4).
		i, j = -1, -1
	search:
		for p := range spans {
			for q := p + 1; q < len(spans); q++ {
				if !fits(&spans[p], &spans[q]) && (spans[p].isInitial || !fits(&spans[q], &spans[p])) {
					i, j = p, q
					break search
				}
			}
		}
		if i < 0 {
			panic("lwt: no conflicting pair of chains")
		}
	}
	x, y := &spans[i], &spans[j]
	if x.isInitial {
		xo, yo := &s.ops[x.bOp], &s.ops[y.aOp]
		what, it := "was invoked", "it"
		if xo.Kind == register.Read {
			what, it = "read "+FormatValue(xo.Value)+" and was invoked", "the read"
		}
		return &Violation{Op: int(x.bOp), Related: []int{int(y.aOp)}, Reason: fmt.Sprintf(
			"%s %s too late: the values from the initial one on (%s) must all come before the chain that %s starts, "+
				"but %s, in that chain, returned at %d, before %s was invoked at %d",
			xo, what, s.chainText(x.chain), s.ops[s.writer[y.chain[0]]], yo, y.a, it, x.b)}
	}
	return &Violation{Op: int(y.aOp), Related: []int{int(x.bOp), int(x.aOp), int(y.bOp)}, Reason: fmt.Sprintf(
		"the version chains %s and %s fit real time in neither order: %s returned at %d before %s was invoked at %d, "+
			"and %s returned at %d before %s was invoked at %d",
		s.chainText(x.chain), s.chainText(y.chain),
		s.ops[y.aOp], y.a, s.ops[x.bOp], x.b,
		s.ops[x.aOp], x.a, s.ops[y.bOp], y.b)}
}

// chainText prints a chain of versions, shortened in the middle.
func (s *chainState) chainText(c []int32) string {
	var parts []string
	for j, k := range c {
		if len(c) > 6 && j == 3 {
			parts = append(parts, "…")
		}
		if len(c) > 6 && j >= 3 && j < len(c)-2 {
			continue
		}
		parts = append(parts, FormatValue(s.value[k]))
	}
	return strings.Join(parts, " → ")
}

// pathText prints the version order from version a to version b of one
// chain (a before b), shortened in the middle.
func (s *chainState) pathText(a, b int32) string {
	var c []int32
	for k := a; k >= 0; k = s.next[k] {
		c = append(c, k)
		if k == b {
			break
		}
	}
	return s.chainText(c)
}

// placeFails is step 5: put every failed CAS(a,·) among the readers of a
// version other than a, respecting real time.
func (s *chainState) placeFails() *Violation {
	if len(s.fails) == 0 {
		return nil
	}
	K := len(s.order)
	G := 2 * K // group 2p: writer of order[p]; 2p+1: its readers
	preMax := make([]int64, G)
	preArg := make([]int32, G)
	sufMin := make([]int64, G+1)
	sufArg := make([]int32, G+1)
	cur, carg := int64(math.MinInt64), noOp
	for g := 0; g < G; g++ {
		s.forGroup(s.order[g/2], g%2 == 0, func(i int32) {
			if c := s.ops[i].Call; c > cur {
				cur, carg = c, i
			}
		})
		preMax[g], preArg[g] = cur, carg
	}
	sufMin[G], sufArg[G] = Never, noOp
	cur, carg = Never, noOp
	for g := G - 1; g >= 0; g-- {
		s.forGroup(s.order[g/2], g%2 == 0, func(i int32) {
			if r := ret(&s.ops[i]); r < cur {
				cur, carg = r, i
			}
		})
		sufMin[g], sufArg[g] = cur, carg
	}

	type event struct {
		t    int64
		ret  bool
		fail int32 // index into s.fails
	}
	ev := make([]event, 0, 2*len(s.fails))
	for j, i := range s.fails {
		ev = append(ev, event{s.ops[i].Call, false, int32(j)}, event{s.ops[i].Return, true, int32(j)})
	}
	sort.Slice(ev, func(a, b int) bool {
		if ev[a].t != ev[b].t {
			return ev[a].t < ev[b].t
		}
		return !ev[a].ret && ev[b].ret // calls first: touching intervals are concurrent
	})
	place := make([]int, len(s.fails))
	low, lowArg := 0, noOp // the latest place of a failed CAS that returned
	for _, e := range ev {
		if !s.w.tick() {
			return nil
		}
		i := s.fails[e.fail]
		if e.ret {
			if place[e.fail] > low {
				low, lowArg = place[e.fail], i
			}
			continue
		}
		o := &s.ops[i]
		lo := sort.Search(K, func(p int) bool { return sufMin[2*p+2] >= o.Call })
		hi := sort.Search(K, func(p int) bool { return preMax[2*p] > o.Return }) - 1
		excl := -1
		if k, ok := s.version[o.Old]; ok {
			excl = int(s.pos[k])
		}
		p := max(lo, low)
		if p == excl {
			p++
		}
		if p > hi {
			return s.failReason(i, lo, hi, low, lowArg, excl, sufArg, preArg)
		}
		place[e.fail] = p
	}
	return nil
}

// failReason explains why failed CAS i has no place: lo..hi are the places
// real time allows, low is forced by an earlier failed CAS, excl is the
// place of its expected value.
func (s *chainState) failReason(i int32, lo, hi, low int, lowArg int32, excl int, sufArg, preArg []int32) *Violation {
	o := &s.ops[i]
	v := &Violation{Op: int(i)}
	var after, before string
	from := max(lo, low)
	if low > lo && lowArg != noOp {
		v.Related = append(v.Related, int(lowArg))
		after = fmt.Sprintf("it must come after %s, which failed before it was invoked and cannot take place earlier", s.ops[lowArg])
	} else if from > 0 && sufArg[2*from] != noOp {
		y := sufArg[2*from]
		v.Related = append(v.Related, int(y))
		after = fmt.Sprintf("it must come after %s, which returned at %s", s.ops[y], fmtTime(ret(&s.ops[y])))
	}
	if hi+1 < len(s.order) && preArg[2*(hi+1)] != noOp {
		x := preArg[2*(hi+1)]
		v.Related = append(v.Related, int(x))
		before = fmt.Sprintf("it must come before %s, which was invoked at %d", s.ops[x], s.ops[x].Call)
	}
	bounds := strings.Join(nonEmpty(after, before), " and ")
	if bounds == "" {
		bounds = "real time leaves it no other place"
	}
	if excl >= 0 && from <= excl && excl <= hi && hi-from <= 1 {
		v.Reason = fmt.Sprintf("%s failed, so the register held a value other than %s at some point while it ran; but %s, and in between the register holds only %s",
			o, FormatValue(o.Old), bounds, FormatValue(o.Old))
	} else {
		v.Reason = fmt.Sprintf("%s failed, but no point of the version order fits it: %s", o, bounds)
	}
	return v
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// versionOfOp returns the version whose group op i belongs to, and whether
// it is the writer of that version.
func (s *chainState) versionOfOp(i int32) (int32, bool) {
	o := &s.ops[i]
	if v, ok := writes(o); ok {
		if k, ok := s.version[v]; ok && s.writer[k] == i {
			return k, true
		}
	}
	return s.version[o.Value], false
}

// does describes what op i does to or sees of version k.
func (s *chainState) does(i int32, w bool, k int32) string {
	if w {
		return "wrote " + FormatValue(s.value[k])
	}
	return "read " + FormatValue(s.value[k])
}

// realTime explains a violation of step 3: x belongs to an earlier group of
// the chain than y, but y returned before x was invoked.
func (s *chainState) realTime(x, y int32) *Violation {
	ox, oy := &s.ops[x], &s.ops[y]
	kx, wx := s.versionOfOp(x)
	ky, wy := s.versionOfOp(y)
	v := &Violation{Op: int(x), Related: []int{int(y)}}
	switch {
	case !wx && wy && s.next[kx] == ky:
		v.Reason = fmt.Sprintf("%s read %s, but %s had already been overwritten: %s replaced it and returned at %d, before the read was invoked at %d",
			ox, FormatValue(s.value[kx]), FormatValue(s.value[kx]), oy, oy.Return, ox.Call)
	case kx == ky && wx && !wy:
		v.Reason = fmt.Sprintf("%s read %s before it was written: it returned at %d, before %s was invoked at %d",
			oy, FormatValue(s.value[ky]), oy.Return, ox, ox.Call)
	case !wx:
		v.Reason = fmt.Sprintf("%s read %s, but %s had already been overwritten: %s %s and returned at %d, before the read was invoked at %d, and the version order forced by CAS is %s",
			ox, FormatValue(s.value[kx]), FormatValue(s.value[kx]), oy, s.does(y, wy, ky), oy.Return, ox.Call, s.pathText(kx, ky))
	default:
		v.Reason = fmt.Sprintf("%s must take effect before %s, which %s, as the version order forced by CAS is %s; but that returned at %d, before %s was invoked at %d",
			ox, oy, s.does(y, wy, ky), s.pathText(kx, ky), oy.Return, ox.Kind, ox.Call)
	}
	return v
}

// thinAir reports operation i reading v, which nothing wrote.
func (s *chainState) thinAir(i int32, v int64) *Violation {
	return &Violation{Op: int(i), Reason: fmt.Sprintf(
		"%s read %s, but no write or CAS wrote %s (none that succeeded or may have)", s.ops[i], FormatValue(v), FormatValue(v))}
}

// lostUpdate reports two operations that both replaced version a.
func (s *chainState) lostUpdate(a int32, first, second int32) *Violation {
	av := FormatValue(s.value[a])
	return &Violation{Op: int(second), Related: []int{int(first)}, Reason: fmt.Sprintf(
		"lost update: %s and %s both replaced %s, but values are unique, so %s was current only once and only one of them can have found it",
		s.ops[first], s.ops[second], av, av)}
}

// cycle reports versions no chain reaches: CAS that replace each other's
// values in a cycle, so none of them can go first.
func (s *chainState) cycle(chains [][]int32) *Violation {
	seen := make([]bool, len(s.value))
	for _, c := range chains {
		for _, k := range c {
			seen[k] = true
		}
	}
	for k := range s.value {
		if seen[k] {
			continue
		}
		var vals []string
		var rel []int
		for j, cur := 0, int32(k); j < len(s.value) && !(j > 0 && cur == int32(k)); j++ {
			vals = append(vals, FormatValue(s.value[cur]))
			rel = append(rel, int(s.writer[cur]))
			cur = s.version[s.ops[s.writer[cur]].Old]
		}
		return &Violation{Op: int(s.writer[k]), Related: rel[1:], Reason: fmt.Sprintf(
			"%s lies on a cycle of successful CAS (%s ← … ← %s): each found the value the next one wrote, so none of them can have been first",
			s.ops[s.writer[k]], strings.Join(vals, " ← "), vals[0])}
	}
	return nil
}
