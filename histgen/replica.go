package histgen

import (
	"math/rand/v2"

	"github.com/isocheck/isocheck/history"
)

// lamport is a Lamport timestamp made unique by the committing
// transaction's number: the commit order of the replicated stores.
type lamport struct {
	c  int64
	id int64
}

func (a lamport) less(b lamport) bool { return a.c < b.c || a.c == b.c && a.id < b.id }

// shipped is a committed transaction on its way to the other replicas.
type shipped struct {
	origin int
	deps   []int64 // per origin, how many of its commits the origin had applied
	ts     lamport
	writes []history.Op
}

// delivery is a shipped transaction bound for one replica.
type delivery struct {
	sh      *shipped
	readyAt int64 // the time it arrives
}

// replica is one copy of the data.
type replica struct {
	seq   int64        // number of transactions applied
	clock int64        // largest Lamport counter applied
	vers  [][]version  // per key, by apply sequence; increasing timestamps
	from  []int64      // per origin, how many of its commits were applied
	queue [][]delivery // per origin, in commit order, not applied yet
	// applied counts applications, to compact now and then.
	applied int
}

// replicatedStore is the Causal and ReadAtomic store: one replica per
// session (sessions beyond share them), last-writer-wins by Lamport
// timestamp, transactions reading a snapshot of their replica taken when
// they start. A commit reaches another replica after a random delay; the
// Causal store applies it only after what its origin had applied when it
// committed, the ReadAtomic store as soon as it arrives.
type replicatedStore struct {
	causal  bool
	reps    []*replica
	commits int64
	// delay[o][q] is the mean delay of the link from replica o to q.
	delay [][]float64
	rng   *rand.Rand
	sim   *sim // for the snapshots of running transactions; nil: no compaction
}

func newReplicatedStore(rng *rand.Rand, keys, replicas int, causal bool) *replicatedStore {
	st := &replicatedStore{causal: causal, rng: rng, delay: make([][]float64, replicas)}
	for o := range st.delay {
		st.delay[o] = make([]float64, replicas)
		for q := range st.delay[o] {
			st.delay[o][q] = 5
		}
	}
	for range replicas {
		st.reps = append(st.reps, &replica{
			vers:  make([][]version, keys),
			from:  make([]int64, replicas),
			queue: make([][]delivery, replicas),
		})
	}
	return st
}

// setDelays gives every link the mean delay mean, and makes each slow
// (slowdown times slower) with probability p, so that replicas receive
// commits in different orders.
func (st *replicatedStore) setDelays(rng *rand.Rand, mean, slowdown, p float64) {
	for o := range st.delay {
		for q := range st.delay[o] {
			st.delay[o][q] = mean
			if rng.Float64() < p {
				st.delay[o][q] *= slowdown
			}
		}
	}
}

func (st *replicatedStore) begin(r *run, _ int64) {
	r.replica = r.session % len(st.reps)
	r.snap = st.reps[r.replica].seq
}

func (st *replicatedStore) read(r *run, k history.Key) history.Value {
	return lastBefore(st.reps[r.replica].vers[k], r.snap+1)
}

func (st *replicatedStore) commit(r *run, now int64) bool {
	st.commits++
	rep := st.reps[r.replica]
	sh := &shipped{
		origin: r.replica,
		ts:     lamport{rep.clock + 1, st.commits},
		writes: finalWrites(r.ops),
	}
	rep.from[r.replica]++
	sh.deps = append([]int64(nil), rep.from...)
	st.apply(rep, sh)
	for q, other := range st.reps {
		if q != r.replica {
			d := int64(st.rng.ExpFloat64()*st.delay[r.replica][q]) + 1
			other.queue[r.replica] = append(other.queue[r.replica], delivery{sh, now + d})
		}
	}
	return true
}

// apply makes sh visible at rep: each write becomes the key's value unless
// a write with a later timestamp is already there.
func (st *replicatedStore) apply(rep *replica, sh *shipped) {
	rep.seq++
	if sh.ts.c > rep.clock {
		rep.clock = sh.ts.c
	}
	for _, w := range sh.writes {
		vs := rep.vers[w.Key]
		if len(vs) == 0 || vs[len(vs)-1].ts.less(sh.ts) {
			rep.vers[w.Key] = append(vs, version{stamp: rep.seq, ts: sh.ts, val: w.Value})
		}
	}
	rep.applied++
	if st.sim != nil && rep.applied%1024 == 0 {
		st.gc(rep)
	}
}

// background applies, at every replica, the transactions that have
// arrived by now: in arrival order (ReadAtomic), or, for Causal, each
// origin's in commit order once their dependencies are applied.
func (st *replicatedStore) background(now int64) {
	for _, rep := range st.reps {
		if st.causal {
			for progress := true; progress; {
				progress = false
				for o, queue := range rep.queue {
					for len(queue) > 0 && queue[0].readyAt <= now && st.deliverable(rep, queue[0].sh) {
						st.apply(rep, queue[0].sh)
						rep.from[o]++
						queue = queue[1:]
						progress = true
					}
					rep.queue[o] = queue
				}
			}
			continue
		}
		for {
			best, bo, bi := int64(0), -1, -1
			for o, queue := range rep.queue {
				for i, d := range queue {
					if d.readyAt <= now && (bo < 0 || d.readyAt < best) {
						best, bo, bi = d.readyAt, o, i
					}
				}
			}
			if bo < 0 {
				break
			}
			q := rep.queue[bo]
			st.apply(rep, q[bi].sh)
			rep.queue[bo] = append(q[:bi], q[bi+1:]...)
		}
	}
}

// deliverable reports whether rep has applied every transaction sh's
// origin had applied when sh committed.
func (st *replicatedStore) deliverable(rep *replica, sh *shipped) bool {
	for o, n := range sh.deps {
		if o != sh.origin && rep.from[o] < n {
			return false
		}
	}
	return true
}

// gc drops the versions of rep no running transaction can read.
func (st *replicatedStore) gc(rep *replica) {
	limit := rep.seq + 1
	for _, r := range st.sim.runs {
		if r != nil && st.reps[r.replica] == rep && r.snap+1 < limit {
			limit = r.snap + 1
		}
	}
	for k, vs := range rep.vers {
		rep.vers[k] = compact(vs, limit)
	}
}
