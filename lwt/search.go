package lwt

import (
	"context"
	"fmt"
	"sort"
)

// sop is an operation as the exact search sees it.
type sop struct {
	i        int32 // index into ops
	call     int64
	ret      int64 // Never for Info
	required bool  // must be linearized (not Info)
}

// searcher is the exact search for one register: Wing and Gong's
// backtracking over the operations that may come next, with Lowe's cache of
// (linearized set, value) pairs already explored (as in Knossos and
// Porcupine). Info operations may be linearized (taking effect) or left out
// (not taking effect, or taking effect after everything else).
type searcher struct {
	ctx   context.Context
	ops   []Op
	s     []sop // sorted by call
	done  []uint64
	left  int // required operations not yet linearized
	cache map[uint64][]cacheEntry
	steps int
	err   error
	// The deepest point reached, for the report.
	bestDepth int
	bestValue int64
	bestBlock int32
	depth     int
}

type cacheEntry struct {
	done  []uint64
	value int64
}

// search decides one register's history exactly.
func search(ctx context.Context, ops []Op, idx []int32, init int64) (*Violation, error) {
	sr := &searcher{ctx: ctx, ops: ops, cache: map[uint64][]cacheEntry{}, bestDepth: -1, bestBlock: noOp}
	for _, i := range idx {
		o := &ops[i]
		sr.s = append(sr.s, sop{i: i, call: o.Call, ret: ret(o), required: o.Outcome != Info})
		if o.Outcome != Info {
			sr.left++
		}
	}
	sort.SliceStable(sr.s, func(a, b int) bool {
		if sr.s[a].call != sr.s[b].call {
			return sr.s[a].call < sr.s[b].call
		}
		return sr.s[a].ret < sr.s[b].ret
	})
	sr.done = make([]uint64, (len(sr.s)+63)/64)
	ok := sr.dfs(init)
	if sr.err != nil {
		return nil, sr.err
	}
	if ok {
		return nil, nil
	}
	v := &Violation{Op: int(sr.bestBlock)}
	if sr.bestBlock == noOp {
		v.Op = int(sr.s[0].i)
	}
	v.Reason = fmt.Sprintf("no order of the %d operations on this register fits real time (exact search: written values are not unique, or failed CAS and indeterminate operations left the fast path undecided); "+
		"at best %d can be linearized, leaving the register at %s, after which %s cannot be",
		sr.left, sr.bestDepth, FormatValue(sr.bestValue), ops[v.Op])
	return v, nil
}

func (sr *searcher) isDone(j int) bool { return sr.done[j>>6]&(1<<(j&63)) != 0 }
func (sr *searcher) flip(j int)        { sr.done[j>>6] ^= 1 << (j & 63) }

// step applies operation o to value v.
func step(o *Op, v int64) (bool, int64) {
	switch o.Kind {
	case Read:
		return o.Value == v, v
	case Write:
		return true, o.Value
	case CAS:
		switch o.Outcome {
		case Ok:
			return v == o.Old, o.New
		case Fail:
			return v != o.Old, v
		default:
			if v == o.Old {
				return true, o.New
			}
			return false, v // an Info CAS that fails has no effect: leave it out
		}
	}
	return false, v
}

func (sr *searcher) dfs(v int64) bool {
	if sr.left == 0 {
		return true
	}
	if sr.steps++; sr.steps&1023 == 0 && sr.ctx.Err() != nil {
		sr.err = sr.ctx.Err()
		return false
	}
	// The candidates: operations invoked before every pending required
	// operation returned.
	first := 0
	for first < len(sr.s) && sr.isDone(first) {
		first++
	}
	minRet, block := Never, noOp
	end := first
	for ; end < len(sr.s); end++ {
		if sr.isDone(end) {
			continue
		}
		e := &sr.s[end]
		if e.call > minRet {
			break
		}
		if e.required && e.ret < minRet {
			minRet, block = e.ret, e.i
		}
	}
	if sr.depth > sr.bestDepth {
		sr.bestDepth, sr.bestValue, sr.bestBlock = sr.depth, v, block
	}
	for j := first; j < end; j++ {
		if sr.isDone(j) || sr.s[j].call > minRet {
			continue
		}
		e := &sr.s[j]
		ok, nv := step(&sr.ops[e.i], v)
		if !ok {
			continue
		}
		sr.flip(j)
		if sr.remember(nv) {
			if e.required {
				sr.left--
			}
			sr.depth++
			found := sr.dfs(nv)
			sr.depth--
			if e.required {
				sr.left++
			}
			if found {
				return true
			}
			if sr.err != nil {
				return false
			}
		}
		sr.flip(j)
	}
	return false
}

// remember adds (done, v) to the cache and reports whether it was new.
func (sr *searcher) remember(v int64) bool {
	h := uint64(v) * 0x9e3779b97f4a7c15
	for _, w := range sr.done {
		h = (h ^ w) * 0x100000001b3
		h ^= h >> 29
	}
	for _, c := range sr.cache[h] {
		if c.value != v {
			continue
		}
		same := true
		for k, w := range sr.done {
			if c.done[k] != w {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	sr.cache[h] = append(sr.cache[h], cacheEntry{append([]uint64(nil), sr.done...), v})
	return true
}
