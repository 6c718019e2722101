package solver

import (
	"context"
	"fmt"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// picker searches for one option per choice, among assignments not yet
// ruled out: the propositional half of Search. Each option of each
// choice is a variable; a choice takes at least one of its options
// (taking two only adds dependencies, so the first true one stands for
// the choice).
//
// A choice no rule mentions keeps its preferred option without a call to
// gini, so the first assignment, and every choice the theory never
// questions, are the caller's.
type picker struct {
	g       *gini.Gini
	first   []int // variable of option 0 of each choice, minus one
	options []int
	prefer  []int
	touched []bool // a rule mentions the choice: gini decides it
	rules   int
}

// newPicker returns a picker for choices with options[i] options each
// (at least one), preferring option prefer[i] of choice i.
func newPicker(options, prefer []int) *picker {
	p := &picker{g: gini.New(), first: make([]int, len(options)), options: options, prefer: prefer, touched: make([]bool, len(options))}
	v := 0
	for i, n := range options {
		p.first[i] = v
		v += n
	}
	return p
}

func (p *picker) lit(o Option) z.Lit { return z.Var(p.first[o.Choice] + o.Option + 1).Pos() }

// rule rules out every assignment that takes all of opts together. The
// empty rule rules out everything.
func (p *picker) rule(opts []Option) {
	for _, o := range opts {
		if !p.touched[o.Choice] {
			p.touched[o.Choice] = true
			for j := range p.options[o.Choice] {
				p.g.Add(p.lit(Option{o.Choice, j}))
			}
			p.g.Add(z.LitNull)
		}
	}
	for _, o := range opts {
		p.g.Add(p.lit(o).Not())
	}
	p.g.Add(z.LitNull)
	p.rules++
}

// next returns an assignment no rule rules out (pick[i] is the option of
// choice i), or false when there is none. It returns ErrGaveUp, wrapping
// the reason, when ctx ends first.
func (p *picker) next(ctx context.Context) ([]int, bool, error) {
	pick := make([]int, len(p.options))
	copy(pick, p.prefer)
	if p.rules == 0 {
		return pick, true, nil
	}
	// Prefer the preferred options where gini is free to.
	var assume []z.Lit
	for i, t := range p.touched {
		if t {
			assume = append(assume, p.lit(Option{i, p.prefer[i]}))
		}
	}
	p.g.Assume(assume...)
	r := solve(ctx, p.g)
	if r == 0 {
		return nil, false, ctxGaveUp(ctx)
	}
	if r < 0 {
		// Not with every preferred option: without them.
		if r = solve(ctx, p.g); r == 0 {
			return nil, false, ctxGaveUp(ctx)
		}
	}
	if r < 0 {
		return nil, false, nil
	}
	for i, t := range p.touched {
		if !t {
			continue
		}
		for j := range p.options[i] {
			if p.g.Value(p.lit(Option{i, j})) {
				pick[i] = j
				break
			}
		}
	}
	return pick, true, nil
}

// ctxGaveUp returns ErrGaveUp wrapping the reason ctx ended, if it did.
func ctxGaveUp(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrGaveUp, err)
	}
	return ErrGaveUp
}
