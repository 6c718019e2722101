package harness

import (
	"bufio"
	"math/rand/v2"
	"strconv"
	"time"
)

// sustainedName names the online experiment's long stream.
const sustainedName = "SER sustained"

// sustainedFor is how long the online experiment's long stream runs: 30
// minutes at full scale, as long a soak as a test that records its
// history runs, a minute at quick scale, a few seconds in tiny runs.
func sustainedFor(s Scale) time.Duration {
	switch s {
	case Tiny:
		return 3 * time.Second
	case Quick:
		return time.Minute
	case Full:
		return 30 * time.Minute
	default:
		return 5 * time.Minute
	}
}

// fencedSerial writes, as it goes, the history that isocheck run --fences
// records of a store that runs one transaction at a time: serializable,
// strictly so, with fences every `every` transactions of each session, in
// sessions that take turns. It holds the store's state, not the history:
// a stream of any length, written as fast as it is asked for.
type fencedSerial struct {
	sessions, keys, every int
	rng                   *rand.Rand
	state                 map[int64]int64
	written               map[int64]bool // keys written since the last fence
	txns                  []int          // each session's transactions so far
	next                  int64          // the next value written
	clock                 int64
	round                 int64
	// queue holds the lines generated and not yet written.
	queue [][]byte
	buf   []byte
}

func newFencedSerial(sessions, keys, every int) *fencedSerial {
	return &fencedSerial{sessions: sessions, keys: keys, every: every, rng: rand.New(rand.NewPCG(1, 2)),
		state: map[int64]int64{}, written: map[int64]bool{}, txns: make([]int, sessions), next: 1}
}

// write writes lines from to to (the stream's next to-from lines).
func (g *fencedSerial) write(w *bufio.Writer, from, to int) {
	for range to - from {
		if len(g.queue) == 0 {
			g.refill()
		}
		w.Write(g.queue[0])
		g.queue = g.queue[1:]
	}
}

// refill generates a round: each session's `every` transactions, taking
// turns, then a fence.
func (g *fencedSerial) refill() {
	g.queue = g.queue[:0]
	for range g.every {
		for s := range g.sessions {
			g.line(strconv.Itoa(s), strconv.Itoa(s)+"/"+strconv.Itoa(g.txns[s]), g.txn())
			g.txns[s]++
		}
	}
	g.round++
	fence := int64(g.keys)
	value := g.round * 10
	for s := range g.sessions {
		in := fence + 1 + int64(s)
		g.line(strconv.Itoa(s), strconv.Itoa(s)+"/in"+strconv.FormatInt(g.round, 10), g.do(op{w: true, k: in, v: value}))
	}
	var middle []op
	for k := range g.written {
		middle = append(middle, op{k: k})
	}
	for s := range g.sessions {
		middle = append(middle, op{k: fence + 1 + int64(s)})
	}
	middle = append(middle, op{w: true, k: fence, v: value})
	clear(g.written)
	g.line(`"fence"`, "fence/"+strconv.FormatInt(g.round, 10), g.do(middle...))
	for s := range g.sessions {
		g.line(strconv.Itoa(s), strconv.Itoa(s)+"/out"+strconv.FormatInt(g.round, 10), g.do(op{k: fence}))
	}
}

// op is an operation: a write of v to k, or a read of k.
type op struct {
	w    bool
	k, v int64
}

// txn runs a transaction of 8 operations on random keys, half of them
// writes of new values.
func (g *fencedSerial) txn() []op {
	ops := make([]op, 8)
	for i := range ops {
		ops[i] = op{k: g.rng.Int64N(int64(g.keys))}
		if g.rng.IntN(2) == 0 {
			ops[i].w, ops[i].v = true, g.next
			g.next++
		}
	}
	return g.do(ops...)
}

// do runs ops on the state, filling in what the reads read (-1: nothing).
func (g *fencedSerial) do(ops ...op) []op {
	for i, o := range ops {
		if o.w {
			g.state[o.k] = o.v
			g.written[o.k] = true
			continue
		}
		if v, ok := g.state[o.k]; ok {
			ops[i].v = v
		} else {
			ops[i].v = -1
		}
	}
	return ops
}

// line queues a transaction of session (a JSON value) as a line.
func (g *fencedSerial) line(session, id string, ops []op) {
	b := g.buf[:0]
	b = append(b, `{"session":`...)
	b = append(b, session...)
	b = append(b, `,"id":"`...)
	b = append(b, id...)
	b = append(b, `","ops":[`...)
	for i, o := range ops {
		if i > 0 {
			b = append(b, ',')
		}
		if o.w {
			b = append(b, `["w",`...)
		} else {
			b = append(b, `["r",`...)
		}
		b = strconv.AppendInt(b, o.k, 10)
		b = append(b, ',')
		if !o.w && o.v < 0 {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, o.v, 10)
		}
		b = append(b, ']')
	}
	b = append(b, `],"start":`...)
	b = strconv.AppendInt(b, g.clock, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendInt(b, g.clock+1, 10)
	b = append(b, "}\n"...)
	g.clock += 2
	g.buf = b
	g.queue = append(g.queue, append([]byte(nil), b...))
}
