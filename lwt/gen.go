package lwt

import (
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/isocheck/isocheck/register"
)

// Injection is a bug Generate plants in an otherwise linearizable history.
type Injection uint8

const (
	// NoInjection: the history is linearizable.
	NoInjection Injection = iota
	// StaleRead: a read returns a value that was overwritten before the
	// read was invoked.
	StaleRead
	// LostCAS: a second CAS succeeds from a value another successful CAS
	// already replaced (two CAS from one old value, both ok).
	LostCAS
	// WrongFailedCAS: a CAS fails although the register held its expected
	// value during all of the CAS.
	WrongFailedCAS
)

func (j Injection) String() string {
	switch j {
	case NoInjection:
		return "valid"
	case StaleRead:
		return "stale-read"
	case LostCAS:
		return "lost-cas"
	case WrongFailedCAS:
		return "wrong-failed-cas"
	}
	return "Injection(" + strconv.Itoa(int(j)) + ")"
}

// GenConfig describes a generated history.
type GenConfig struct {
	Processes int // concurrent clients (at least 1)
	Ops       int // operations in all
	Keys      int // registers; 0 or 1: one register with key ""
	Seed      uint64
	// ReadFrac and WriteFrac are the shares of reads and blind writes; the
	// rest are CAS. With WriteFrac 0 (MTC's lightweight-transaction
	// workload) registers are created by CAS from nil.
	ReadFrac, WriteFrac float64
	// CASHit is the probability that a CAS expects the current value and
	// succeeds; the others expect an older value and fail.
	CASHit float64
	// InfoFrac is the share of writes and CAS whose outcome is lost (Info;
	// half of them took effect).
	InfoFrac float64
	// Latency bounds the time from invocation to the atomic step and from
	// there to the completion (default 100).
	Latency int64
	// Values, when positive, draws every value written from 1 to Values,
	// so that values repeat and keys go to the exact search. Inject is
	// then ignored (the bugs it plants rely on unique values).
	Values int64
	Inject Injection
}

// Generate simulates an atomic register (one per key) under concurrent
// clients with random latencies, so the history is linearizable, and then
// plants cfg.Inject. Written values are unique unless cfg.Values is set.
// It returns the history and
// the index of the operation changed by the injection (-1: none, either
// because none was asked or because the history had no place for it).
func Generate(cfg GenConfig) ([]Op, int) {
	r := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))
	if cfg.Processes < 1 {
		cfg.Processes = 1
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 100
	}
	keys := max(cfg.Keys, 1)
	type proc struct {
		id   int
		next int64
	}
	procs := make([]proc, cfg.Processes)
	for p := range procs {
		procs[p] = proc{p, r.Int64N(cfg.Latency)}
	}
	nextID := cfg.Processes
	ops := make([]Op, 0, cfg.Ops)
	lin := make([]int64, 0, cfg.Ops)
	for len(ops) < cfg.Ops {
		p := 0
		for q := range procs {
			if procs[q].next < procs[p].next {
				p = q
			}
		}
		o := Op{Process: procs[p].id, Call: procs[p].next}
		l := o.Call + r.Int64N(cfg.Latency+1)
		o.Return = l + r.Int64N(cfg.Latency+1)
		procs[p].next = o.Return + 1 + r.Int64N(cfg.Latency/4+1)
		if keys > 1 {
			o.Key = strconv.Itoa(r.IntN(keys))
		}
		switch x := r.Float64(); {
		case x < cfg.ReadFrac:
			o.Kind = register.Read
		case x < cfg.ReadFrac+cfg.WriteFrac:
			o.Kind = register.Write
		default:
			o.Kind = register.CAS
		}
		if o.Kind != register.Read && r.Float64() < cfg.InfoFrac {
			o.Outcome = register.Info
			procs[p].id = nextID // Jepsen gives a crashed client a new process
			nextID++
		}
		ops = append(ops, o)
		lin = append(lin, l)
	}

	// Apply the operations in the order of their atomic steps.
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lin[order[a]] < lin[order[b]] })
	type version struct {
		value  int64
		writer int // -1: initial
	}
	hist := map[string][]version{}
	fresh := int64(0)
	value := func() int64 {
		if cfg.Values > 0 {
			return 1 + r.Int64N(cfg.Values)
		}
		fresh++
		return fresh
	}
	for _, i := range order {
		o := &ops[i]
		h, ok := hist[o.Key]
		if !ok {
			h = []version{{Nil, -1}}
		}
		c := h[len(h)-1].value
		effect := o.Outcome != register.Info || r.IntN(2) == 0
		switch o.Kind {
		case register.Read:
			o.Value = c
		case register.Write:
			o.Value = value()
			if effect {
				h = append(h, version{o.Value, i})
			}
		case register.CAS:
			o.New = value()
			o.Old = c
			if len(h) >= 2 && r.Float64() >= cfg.CASHit {
				o.Old = h[r.IntN(len(h)-1)].value // an older value: fails
			}
			switch {
			case o.Old != c:
				if o.Outcome != register.Info {
					o.Outcome = register.Fail
				}
			case effect:
				h = append(h, version{o.New, i})
			}
		}
		hist[o.Key] = h
	}
	for i := range ops {
		if ops[i].Outcome == register.Info {
			ops[i].Return = Never
		}
	}
	if cfg.Inject == NoInjection || cfg.Values > 0 {
		return ops, -1
	}

	// Plant the bug. versionAt maps each value to its key's version index.
	at := map[int64]int{}
	for _, h := range hist {
		for j, v := range h {
			at[v.value] = j
		}
	}
	start := r.IntN(len(ops))
	for n := range ops {
		i := (start + n) % len(ops)
		o := &ops[i]
		h := hist[o.Key]
		switch cfg.Inject {
		case StaleRead:
			if o.Kind != register.Read || o.Outcome != register.OK {
				continue
			}
			// Go back to a version whose successor returned before the read.
			for j := at[o.Value] - 1; j >= 0; j-- {
				if w := h[j+1].writer; w >= 0 && ops[w].Outcome == register.OK && ops[w].Return < o.Call {
					o.Value = h[j].value
					return ops, i
				}
			}
		case LostCAS:
			if !(o.Kind == register.CAS && o.Outcome == register.Fail) && !(o.Kind == register.Read && o.Outcome == register.OK) {
				continue
			}
			// Find a successful CAS of the same key and take its old value.
			for j := len(h) - 1; j >= 1; j-- {
				if w := h[j].writer; ops[w].Kind == register.CAS && ops[w].Outcome == register.OK && w != i {
					fresh++
					*o = Op{Process: o.Process, Kind: register.CAS, Key: o.Key, Old: ops[w].Old, New: fresh,
						Call: o.Call, Return: o.Return, Outcome: register.OK}
					return ops, i
				}
			}
		case WrongFailedCAS:
			// A read that ran while its value was surely current becomes a
			// CAS from that value that failed.
			if o.Kind != register.Read || o.Outcome != register.OK {
				continue
			}
			j := at[o.Value]
			w := h[j].writer
			if j+1 >= len(h) || (w >= 0 && ops[w].Return >= o.Call) {
				continue
			}
			if nw := h[j+1].writer; ops[nw].Outcome == register.OK && o.Return < ops[nw].Call {
				fresh++
				o.Kind, o.Old, o.New, o.Outcome = register.CAS, o.Value, fresh, register.Fail
				return ops, i
			}
		}
	}
	if cfg.Inject == WrongFailedCAS {
		// No such read (at high concurrency values change faster than
		// operations complete): a successful CAS whose value was read or
		// replaced is reported as failed instead.
		observed := map[int64]bool{}
		for i := range ops {
			if ops[i].Outcome == register.OK && ops[i].Kind == register.Read {
				observed[ops[i].Value] = true
			}
			if ops[i].Outcome == register.OK && ops[i].Kind == register.CAS {
				observed[ops[i].Old] = true
			}
		}
		for n := range ops {
			i := (start + n) % len(ops)
			if o := &ops[i]; o.Kind == register.CAS && o.Outcome == register.OK && observed[o.New] {
				o.Outcome = register.Fail
				return ops, i
			}
		}
	}
	return ops, -1
}
