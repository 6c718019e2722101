package lwt

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/isocheck/isocheck/internal/edn"
	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/register"
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
	m     *progress.Meter
	ops   []Op
	key   string
	s     []sop // sorted by call
	done  []uint64
	left  int // required operations not yet linearized
	cache stateCache
	steps int
	err   error
	// The deepest point reached, for the report.
	bestDepth int
	bestValue int64
	bestBlock int32
	depth     int
}

// search decides one register's history exactly, with a cache of at most
// limit bytes (no limit if negative). It stops when m's context ends or
// the cache is full, with an error that progress.Stopped recognizes.
func search(m *progress.Meter, ops []Op, idx []int32, init int64, limit int64) (*Violation, error) {
	sr := &searcher{m: m, ops: ops, key: ops[idx[0]].Key, bestDepth: -1, bestBlock: noOp}
	sr.cache.init(limit)
	for _, i := range idx {
		o := &ops[i]
		sr.s = append(sr.s, sop{i: i, call: o.Call, ret: ret(o), required: o.Outcome != register.Info})
		if o.Outcome != register.Info {
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
	ok := sr.dfs(init, 0)
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

// searchName names the exact search of key in messages.
func searchName(key string) string {
	if key == "" {
		return "the exact search"
	}
	return "the exact search of key " + edn.Quote(key)
}

func (sr *searcher) isDone(j int) bool { return sr.done[j>>6]&(1<<(j&63)) != 0 }
func (sr *searcher) flip(j int)        { sr.done[j>>6] ^= 1 << (j & 63) }

// step applies operation o to value v.
func step(o *Op, v int64) (bool, int64) {
	switch o.Kind {
	case register.Read:
		return o.Value == v, v
	case register.Write:
		return true, o.Value
	case register.CAS:
		switch o.Outcome {
		case register.OK:
			return v == o.Old, o.New
		case register.Fail:
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

// tick counts a step of the search (a state visited or looked up) on the
// meter every progress.Every steps, and reports whether to go on.
func (sr *searcher) tick() bool {
	if sr.steps++; sr.steps < progress.Every {
		return true
	}
	sr.steps = 0
	if err := sr.m.Add(progress.Every); err != nil {
		sr.err = stopError{err, fmt.Sprintf("%s after %d states", searchName(sr.key), sr.cache.entries)}
		return false
	}
	return true
}

// dfs extends the linearization, in which the register holds v and every
// operation before s[from] is done.
func (sr *searcher) dfs(v int64, from int) bool {
	if sr.left == 0 {
		return true
	}
	if !sr.tick() {
		return false
	}
	// The candidates: operations invoked before every pending required
	// operation returned.
	first := from
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
		if !sr.tick() {
			return false
		}
		sr.flip(j)
		isNew, err := sr.cache.add(sr.done, first>>6, nv)
		if err != nil {
			sr.err = fmt.Errorf("%w: %s needed more than %d states (~%d MiB)",
				progress.ErrResourceLimit, searchName(sr.key), sr.cache.entries, (sr.cache.limit+1<<20-1)>>20)
			return false
		}
		if isNew {
			if e.required {
				sr.left--
			}
			sr.depth++
			found := sr.dfs(nv, first)
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

// stateCache is the set of states (linearized set, value) the search has
// explored, in compact form: a set is its value, the index lo of its first
// word that is not all ones (all before are), and its words from lo to the
// last that is not zero. Records live in large chunks, so that the cache
// costs about its records and its index, which add counts against limit.
type stateCache struct {
	index   map[uint64]int64 // hash -> address of the newest record with it
	chunks  [][]uint64
	entries int64
	bytes   int64 // estimated
	limit   int64 // negative: none
}

// A record at address a (chunk a>>32, offset a&(1<<32-1)) is: the address
// of the previous record with the same hash (or noRecord), the value, lo
// and the number of words n (lo<<32|n), and the n words.
const (
	noRecord   = -1
	chunkWords = 1 << 17 // 1 MiB
	// indexEntryBytes is what an entry of the index costs, with the slack
	// of a hash table that has just doubled.
	indexEntryBytes = 48
)

func (c *stateCache) init(limit int64) {
	c.index = map[uint64]int64{}
	c.limit = limit
}

// add adds done (whose words before lo are all ones) with value v, and
// reports whether it was new. It fails when the cache would go past its
// limit.
func (c *stateCache) add(done []uint64, lo int, v int64) (bool, error) {
	for lo < len(done) && done[lo] == ^uint64(0) {
		lo++
	}
	hi := len(done)
	for hi > lo && done[hi-1] == 0 {
		hi--
	}
	w := done[lo:hi]
	h := (uint64(v)*0x9e3779b97f4a7c15 ^ uint64(lo)) * 0x100000001b3
	for _, x := range w {
		h = (h ^ x) * 0x100000001b3
		h ^= h >> 29
	}
	head, ok := c.index[h]
	if !ok {
		head = noRecord
	}
	for a := head; a != noRecord; {
		r := c.record(a)
		if int64(r[1]) == v && r[2] == uint64(lo)<<32|uint64(len(w)) && slices.Equal(r[3:3+len(w)], w) {
			return false, nil
		}
		a = int64(r[0])
	}
	// Make room.
	need := 3 + len(w)
	cur := len(c.chunks) - 1
	if cur < 0 || cap(c.chunks[cur])-len(c.chunks[cur]) < need {
		size := chunkWords
		if cur >= 0 && cap(c.chunks[cur]) < chunkWords {
			size = 2 * cap(c.chunks[cur]) // small searches stay small
		} else if cur < 0 {
			size = 256
		}
		size = max(size, need)
		if !c.fits(int64(size)*8 + indexEntryBytes) {
			return false, errCacheFull
		}
		c.chunks = append(c.chunks, make([]uint64, 0, size))
		c.bytes += int64(size) * 8
		cur++
	} else if !c.fits(indexEntryBytes) {
		return false, errCacheFull
	}
	ch := c.chunks[cur]
	a := int64(cur)<<32 | int64(len(ch))
	ch = append(ch, uint64(head), uint64(v), uint64(lo)<<32|uint64(len(w)))
	c.chunks[cur] = append(ch, w...)
	c.index[h] = a
	c.entries++
	c.bytes += indexEntryBytes
	return true, nil
}

var errCacheFull = errors.New("the cache is full")

func (c *stateCache) fits(more int64) bool {
	return c.limit < 0 || c.bytes+more <= c.limit
}

func (c *stateCache) record(a int64) []uint64 {
	return c.chunks[a>>32][a&(1<<32-1):]
}
