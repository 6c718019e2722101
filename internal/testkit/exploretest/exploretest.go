// Package exploretest generates small random transactional programs as
// data, for testing package explore against the brute-force reference of
// package internal/reference. A Program is a plain value: it prints
// readably (String), compiles to an explore.Program whose transaction
// bodies interpret it (Explore), and can be interpreted step by step by
// another implementation of the semantics (Run).
package exploretest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/isocheck/isocheck/explore"
)

// Keys are the keys random programs use.
var Keys = []string{"x", "y", "z"}

// NumLocals is the number of local variables of a transaction, l0 to l3.
// They start at 0.
const NumLocals = 4

// Op is the kind of an instruction.
type Op uint8

const (
	// OpRead reads Key into local Local.
	OpRead Op = iota + 1
	// OpWrite writes Key: Const, plus local Local when UseLocal is set.
	OpWrite
	// OpIf runs Then when local Local equals Const, else Else.
	OpIf
	// OpAbort aborts the transaction.
	OpAbort
	// OpAssert asserts that local Local compares with Const by Cmp.
	OpAssert
)

// Cmp is the comparison of an assertion.
type Cmp uint8

const (
	Eq Cmp = iota
	Ne
	Lt
	Ge
)

func (c Cmp) String() string { return [...]string{"==", "!=", "<", ">="}[c] }

// Holds reports whether a c b.
func (c Cmp) Holds(a, b int64) bool {
	switch c {
	case Eq:
		return a == b
	case Ne:
		return a != b
	case Lt:
		return a < b
	}
	return a >= b
}

// Instr is one instruction of a transaction.
type Instr struct {
	Op       Op
	Key      string
	Local    int
	UseLocal bool
	Const    int64
	Cmp      Cmp
	Then     []Instr
	Else     []Instr
}

// Txn is a transaction: its instructions, run in order. It commits when it
// reaches the end without aborting.
type Txn struct {
	Instrs []Instr
}

// Program is a transactional program: sessions of transactions, the
// initial values of keys (0 when absent), and optionally a Final
// transaction that runs after all the others.
type Program struct {
	Sessions [][]Txn
	Init     map[string]int64
	Final    *Txn
}

// Size bounds a random program.
type Size struct {
	// Sessions is the largest number of sessions (at least 2).
	Sessions int
	// Txns is the largest number of transactions in a session.
	Txns int
	// Instrs is the largest number of instructions in a block.
	Instrs int
	// Depth is the largest nesting of ifs.
	Depth int
	// Total, when positive, is the largest number of transactions of
	// all sessions (Final aside).
	Total int
}

// Small is the size of the property tests: 2–3 sessions of 1–3
// transactions, 6 at most, blocks of up to 2 instructions, ifs nested
// twice.
var Small = Size{Sessions: 3, Txns: 3, Instrs: 2, Depth: 2, Total: 6}

// Random returns a random program of at most the given size, drawn from
// rng alone (the same rng state gives the same program).
func Random(rng *rand.Rand, size Size) *Program {
	p := &Program{}
	nsess := 2
	if size.Sessions > 2 {
		nsess += rng.IntN(size.Sessions - 1)
	}
	total := 0
	for i := range nsess {
		var s []Txn
		n := 1 + rng.IntN(max(size.Txns, 1))
		if size.Total > 0 {
			// Leave a transaction for each session after this one.
			n = max(1, min(n, size.Total-total-(nsess-1-i)))
		}
		total += n
		for range n {
			g := &gen{rng: rng, size: size}
			s = append(s, Txn{Instrs: g.block(0, true)})
		}
		p.Sessions = append(p.Sessions, s)
	}
	if rng.IntN(4) == 0 {
		p.Init = map[string]int64{Keys[rng.IntN(len(Keys))]: 1}
	}
	if rng.IntN(3) == 0 {
		// Final reads some keys and asserts over them.
		g := &gen{rng: rng, size: size}
		var f Txn
		for i := range 1 + rng.IntN(len(Keys)) {
			f.Instrs = append(f.Instrs, Instr{Op: OpRead, Key: Keys[rng.IntN(len(Keys))], Local: i})
			g.assigned++
		}
		f.Instrs = append(f.Instrs, g.assert())
		p.Final = &f
	}
	return p
}

// gen generates the instructions of one transaction.
type gen struct {
	rng      *rand.Rand
	size     Size
	assigned int // locals l0 .. l(assigned-1) were read into
}

func (g *gen) key() string { return Keys[g.rng.IntN(len(Keys))] }

func (g *gen) local() int { return g.rng.IntN(g.assigned) }

func (g *gen) assert() Instr {
	return Instr{Op: OpAssert, Local: g.local(), Cmp: Cmp(g.rng.IntN(4)), Const: int64(g.rng.IntN(3))}
}

// block returns a block of instructions at nesting depth.
func (g *gen) block(depth int, top bool) []Instr {
	var out []Instr
	n := 1 + g.rng.IntN(max(g.size.Instrs, 1))
	for i := 0; i < n; i++ {
		r := g.rng.IntN(100)
		switch {
		case r < 35 || g.assigned == 0 && r < 60:
			local := g.assigned
			if local >= NumLocals {
				local = g.rng.IntN(NumLocals)
			} else {
				g.assigned++
			}
			out = append(out, Instr{Op: OpRead, Key: g.key(), Local: local})
		case r < 70:
			w := Instr{Op: OpWrite, Key: g.key(), Const: int64(1 + g.rng.IntN(2))}
			if g.assigned > 0 && g.rng.IntN(2) == 0 {
				w.UseLocal, w.Local = true, g.local()
			}
			out = append(out, w)
		case r < 85 && depth < g.size.Depth && g.assigned > 0:
			in := Instr{Op: OpIf, Local: g.local(), Const: int64(g.rng.IntN(2))}
			// The branches see the locals assigned before the if only.
			saved := g.assigned
			in.Then = g.block(depth+1, false)
			g.assigned = saved
			if g.rng.IntN(3) > 0 {
				in.Else = g.block(depth+1, false)
			}
			g.assigned = saved
			out = append(out, in)
		case r < 93 && g.assigned > 0:
			out = append(out, g.assert())
		case !top && g.rng.IntN(2) == 0 || top && g.rng.IntN(6) == 0:
			// Aborts end their block: they are usually in a branch.
			return append(out, Instr{Op: OpAbort})
		default:
			out = append(out, Instr{Op: OpWrite, Key: g.key(), Const: int64(g.rng.IntN(3))})
		}
	}
	return out
}

// Explore compiles p to an explore.Program whose transaction bodies
// interpret p's instructions.
func (p *Program) Explore() *explore.Program {
	ep := &explore.Program{Init: p.Init}
	for i, s := range p.Sessions {
		var es explore.Session
		for j, t := range s {
			es.Txns = append(es.Txns, explore.Txn{Name: fmt.Sprintf("s%d.t%d", i, j), Body: t.body})
		}
		ep.Sessions = append(ep.Sessions, es)
	}
	if p.Final != nil {
		ep.Final = &explore.Txn{Name: "final", Body: p.Final.body}
	}
	return ep
}

func (t Txn) body(tx *explore.Tx) {
	var locals [NumLocals]int64
	var exec func([]Instr)
	exec = func(block []Instr) {
		for _, in := range block {
			switch in.Op {
			case OpRead:
				locals[in.Local] = tx.Read(in.Key)
			case OpWrite:
				v := in.Const
				if in.UseLocal {
					v += locals[in.Local]
				}
				tx.Write(in.Key, v)
			case OpIf:
				if locals[in.Local] == in.Const {
					exec(in.Then)
				} else {
					exec(in.Else)
				}
			case OpAbort:
				tx.Abort()
			case OpAssert:
				tx.Assert(in.Cmp.Holds(locals[in.Local], in.Const), "%s", in.assertion(locals[in.Local]))
			}
		}
	}
	exec(t.Instrs)
}

// assertion is the message of a failed assertion.
func (in Instr) assertion(v int64) string {
	return fmt.Sprintf("assert l%d %s %d (l%d = %d)", in.Local, in.Cmp, in.Const, in.Local, v)
}

// A Step is what a transaction does next, as Run finds it.
type Step struct {
	// Kind is explore.Read, Write, Commit or Abort.
	Kind explore.EventKind
	Key  string
	// Value is the value written (Write).
	Value int64
	// Failures are the messages of the assertions that failed, at the
	// transaction's end (Commit or Abort).
	Failures []string
}

// Run interprets t given the values its first len(reads) reads returned
// (own reads included, in program order) and returns the step after
// those: the event following the len(reads) reads and the writes among
// them. n is the number of events already taken; Run stops at event n.
// Reads past the known ones stop the run: their Step has Kind Read.
func (t Txn) Run(reads []int64, n int) Step {
	var locals [NumLocals]int64
	var failures []string
	events, nread := 0, 0
	var stop *Step
	var exec func([]Instr) bool // false: stopped
	exec = func(block []Instr) bool {
		for _, in := range block {
			switch in.Op {
			case OpRead:
				if events == n {
					stop = &Step{Kind: explore.Read, Key: in.Key}
					return false
				}
				locals[in.Local] = reads[nread]
				nread++
				events++
			case OpWrite:
				v := in.Const
				if in.UseLocal {
					v += locals[in.Local]
				}
				if events == n {
					stop = &Step{Kind: explore.Write, Key: in.Key, Value: v}
					return false
				}
				events++
			case OpIf:
				b := in.Else
				if locals[in.Local] == in.Const {
					b = in.Then
				}
				if !exec(b) {
					return false
				}
			case OpAbort:
				stop = &Step{Kind: explore.Abort, Failures: failures}
				return false
			case OpAssert:
				if !in.Cmp.Holds(locals[in.Local], in.Const) {
					failures = append(failures, in.assertion(locals[in.Local]))
				}
			}
		}
		return true
	}
	if exec(t.Instrs) {
		return Step{Kind: explore.Commit, Failures: failures}
	}
	return *stop
}

// String prints p, a transaction a line, blocks in braces.
func (p *Program) String() string {
	var b strings.Builder
	if len(p.Init) > 0 {
		fmt.Fprintf(&b, "init %v\n", p.Init)
	}
	for i, s := range p.Sessions {
		for j, t := range s {
			fmt.Fprintf(&b, "s%d.t%d: %s\n", i, j, t)
		}
	}
	if p.Final != nil {
		fmt.Fprintf(&b, "final: %s\n", *p.Final)
	}
	return b.String()
}

func (t Txn) String() string { return blockString(t.Instrs) }

func blockString(block []Instr) string {
	var parts []string
	for _, in := range block {
		parts = append(parts, in.String())
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

func (in Instr) String() string {
	switch in.Op {
	case OpRead:
		return fmt.Sprintf("l%d = r(%s)", in.Local, in.Key)
	case OpWrite:
		if in.UseLocal {
			return fmt.Sprintf("w(%s, l%d+%d)", in.Key, in.Local, in.Const)
		}
		return fmt.Sprintf("w(%s, %d)", in.Key, in.Const)
	case OpIf:
		s := fmt.Sprintf("if l%d == %d %s", in.Local, in.Const, blockString(in.Then))
		if len(in.Else) > 0 {
			s += " else " + blockString(in.Else)
		}
		return s
	case OpAbort:
		return "abort"
	case OpAssert:
		return fmt.Sprintf("assert l%d %s %d", in.Local, in.Cmp, in.Const)
	}
	return "?"
}

// Shrink returns a smallest program it finds, by removing sessions,
// transactions, the Final transaction, the initial values and
// instructions, and replacing ifs by one of their branches, for which
// fails still holds. fails(p) must hold.
func Shrink(p *Program, fails func(*Program) bool) *Program {
	for {
		smaller := false
		for _, q := range p.shrinks() {
			if fails(q) {
				p, smaller = q, true
				break
			}
		}
		if !smaller {
			return p
		}
	}
}

// shrinks returns the programs one step smaller than p.
func (p *Program) shrinks() []*Program {
	var out []*Program
	if p.Final != nil {
		q := p.clone()
		q.Final = nil
		out = append(out, q)
	}
	if len(p.Init) > 0 {
		q := p.clone()
		q.Init = nil
		out = append(out, q)
	}
	for i := range p.Sessions {
		if len(p.Sessions) > 1 {
			q := p.clone()
			q.Sessions = append(q.Sessions[:i], q.Sessions[i+1:]...)
			out = append(out, q)
		}
		for j := range p.Sessions[i] {
			if len(p.Sessions[i]) > 1 {
				q := p.clone()
				q.Sessions[i] = append(q.Sessions[i][:j], q.Sessions[i][j+1:]...)
				out = append(out, q)
			}
			for _, b := range blockShrinks(p.Sessions[i][j].Instrs) {
				q := p.clone()
				q.Sessions[i][j] = Txn{Instrs: b}
				out = append(out, q)
			}
		}
	}
	if p.Final != nil {
		for _, b := range blockShrinks(p.Final.Instrs) {
			q := p.clone()
			q.Final = &Txn{Instrs: b}
			out = append(out, q)
		}
	}
	return out
}

// blockShrinks returns the blocks one step smaller than b.
func blockShrinks(b []Instr) [][]Instr {
	var out [][]Instr
	for i, in := range b {
		rest := func(mid []Instr) []Instr {
			c := append([]Instr(nil), b[:i]...)
			c = append(c, mid...)
			return append(c, b[i+1:]...)
		}
		out = append(out, rest(nil))
		if in.Op == OpIf {
			out = append(out, rest(in.Then), rest(in.Else))
			for _, t := range blockShrinks(in.Then) {
				c := in
				c.Then = t
				out = append(out, rest([]Instr{c}))
			}
			for _, e := range blockShrinks(in.Else) {
				c := in
				c.Else = e
				out = append(out, rest([]Instr{c}))
			}
		}
	}
	return out
}

// clone copies p's sessions (the instructions are shared: shrinking
// replaces blocks, never changes them).
func (p *Program) clone() *Program {
	q := &Program{Init: p.Init, Final: p.Final}
	for _, s := range p.Sessions {
		q.Sessions = append(q.Sessions, append([]Txn(nil), s...))
	}
	return q
}
