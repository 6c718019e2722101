package solver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// forbid is a toy theory: an assignment that takes every option of one
// of the sets violates it, and the first such set is the conflict.
func forbid(sets ...[]Option) Theory {
	return func(_ context.Context, pick []int) (Judgement, error) {
		for _, set := range sets {
			if takesAll(pick, set) {
				return Conflict(set...), nil
			}
		}
		return Consistent(), nil
	}
}

func takesAll(pick []int, set []Option) bool {
	for _, o := range set {
		if pick[o.Choice] != o.Option {
			return false
		}
	}
	return true
}

var errTheory = errors.New("the theory failed")

func TestSearch(t *testing.T) {
	for _, tc := range []struct {
		name            string
		options, prefer []int
		theory          func(cancel context.CancelFunc) Theory
		cancelled       bool // ctx ended before the search
		want            Status
		wantPick        []int // nil: any pick the theory accepts; -1: any option
		rounds          int
		conflicts       int
		err             error
	}{{
		name: "the preferred assignment satisfies", options: []int{2, 3}, prefer: []int{1, 2},
		theory:   func(context.CancelFunc) Theory { return forbid([]Option{{0, 0}, {1, 1}}) },
		want:     Sat,
		wantPick: []int{1, 2}, rounds: 1,
	}, {
		name: "not option 0 of choice 0 with option 1 of choice 1", options: []int{2, 2}, prefer: []int{0, 1},
		theory: func(context.CancelFunc) Theory { return forbid([]Option{{0, 0}, {1, 1}}) },
		want:   Sat, rounds: 2, conflicts: 1,
	}, {
		name: "a choice no conflict names keeps its preferred option", options: []int{2, 2, 3}, prefer: []int{0, 1, 2},
		theory: func(context.CancelFunc) Theory {
			return forbid([]Option{{0, 0}, {1, 1}}, []Option{{0, 1}, {1, 1}})
		},
		want: Sat, wantPick: []int{-1, 0, 2},
	}, {
		name: "all different: three of three", options: []int{3, 3, 3}, prefer: []int{0, 0, 0},
		theory: func(context.CancelFunc) Theory { return allDifferent },
		want:   Sat,
	}, {
		name: "all different: four of three", options: []int{3, 3, 3, 3}, prefer: []int{0, 0, 0, 0},
		theory: func(context.CancelFunc) Theory { return allDifferent },
		want:   Unsat,
	}, {
		name: "every assignment ruled out, one by one", options: []int{2, 3}, prefer: []int{0, 0},
		theory: func(context.CancelFunc) Theory {
			return func(_ context.Context, pick []int) (Judgement, error) {
				return Conflict(Option{0, pick[0]}, Option{1, pick[1]}), nil
			}
		},
		want: Unsat, rounds: 6, conflicts: 6,
	}, {
		name: "violated whatever is chosen", options: []int{2, 2}, prefer: []int{0, 0},
		theory: func(context.CancelFunc) Theory { return forbid(nil) },
		want:   Unsat, rounds: 1,
	}, {
		name: "no choices", options: nil, prefer: nil,
		theory:   func(context.CancelFunc) Theory { return forbid() },
		want:     Sat,
		wantPick: []int{}, rounds: 1,
	}, {
		name: "the theory cannot tell", options: []int{2, 2}, prefer: []int{0, 0},
		theory: func(context.CancelFunc) Theory {
			return func(_ context.Context, pick []int) (Judgement, error) {
				if pick[0] == 0 {
					return Conflict(Option{0, 0}), nil
				}
				return Undecided(), nil
			}
		},
		want: Unknown, wantPick: []int{1, 0}, rounds: 2, conflicts: 1,
	}, {
		name: "the theory errs", options: []int{2, 2}, prefer: []int{0, 0},
		theory: func(context.CancelFunc) Theory {
			return func(_ context.Context, pick []int) (Judgement, error) {
				if pick[1] == 0 {
					return Conflict(Option{1, 0}), nil
				}
				return Consistent(), errTheory
			}
		},
		want: Unknown, wantPick: []int{0, 1}, rounds: 2, conflicts: 1, err: errTheory,
	}, {
		name: "ctx cancelled before", options: []int{2, 2}, prefer: []int{0, 0},
		theory:    func(context.CancelFunc) Theory { return forbid() },
		cancelled: true,
		want:      Unknown, rounds: 0, err: ErrGaveUp,
	}, {
		name: "ctx cancelled during a round", options: []int{2, 2}, prefer: []int{0, 0},
		theory: func(cancel context.CancelFunc) Theory {
			return func(_ context.Context, pick []int) (Judgement, error) {
				cancel()
				return Conflict(Option{0, pick[0]}), nil
			}
		},
		want: Unknown, wantPick: []int{0, 0}, rounds: 1, conflicts: 1, err: ErrGaveUp,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			theory := tc.theory(cancel)
			var seen [][]int
			counted := func(ctx context.Context, pick []int) (Judgement, error) {
				if len(pick) != len(tc.options) {
					t.Fatalf("assignment %v for %d choices", pick, len(tc.options))
				}
				for i, o := range pick {
					if o < 0 || o >= tc.options[i] {
						t.Fatalf("assignment %v: choice %d has %d options", pick, i, tc.options[i])
					}
				}
				for _, s := range seen {
					if slices.Equal(s, pick) {
						t.Fatalf("assignment %v proposed twice", pick)
					}
				}
				seen = append(seen, slices.Clone(pick))
				return theory(ctx, pick)
			}
			f, err := Search(ctx, tc.options, tc.prefer, counted)
			switch {
			case tc.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != nil && !errors.Is(err, tc.err):
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if f.Status != tc.want {
				t.Errorf("status %v, want %v", f.Status, tc.want)
			}
			if f.Rounds != len(seen) {
				t.Errorf("%d rounds counted, %d judged", f.Rounds, len(seen))
			}
			if tc.rounds > 0 || tc.cancelled {
				if f.Rounds != tc.rounds {
					t.Errorf("%d rounds, want %d", f.Rounds, tc.rounds)
				}
				if f.Conflicts != tc.conflicts {
					t.Errorf("%d conflicts, want %d", f.Conflicts, tc.conflicts)
				}
			}
			if tc.wantPick != nil && !slices.EqualFunc(f.Pick, tc.wantPick, func(got, want int) bool { return want < 0 || got == want }) {
				t.Errorf("pick %v, want %v", f.Pick, tc.wantPick)
			}
			if f.Status == Sat {
				if j, _ := theory(context.Background(), f.Pick); j.Status != Sat {
					t.Errorf("pick %v does not satisfy the theory", f.Pick)
				}
			}
		})
	}
}

// allDifferent is a theory whose choices must take different options:
// a conflict is two choices that take the same.
func allDifferent(_ context.Context, pick []int) (Judgement, error) {
	for i := range pick {
		for j := range i {
			if pick[i] == pick[j] {
				return Conflict(Option{j, pick[j]}, Option{i, pick[i]}), nil
			}
		}
	}
	return Consistent(), nil
}

// TestSearchAgreesWithBruteForce: on random toy theories (sets of options
// no assignment may take together), Search is Sat exactly when some
// assignment takes no set whole, which trying every assignment tells.
func TestSearchAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[Status]int{}
	for trial := range 300 {
		n := 1 + rng.IntN(5)
		options, prefer := make([]int, n), make([]int, n)
		for i := range n {
			options[i] = 1 + rng.IntN(3)
			prefer[i] = rng.IntN(options[i])
		}
		var sets [][]Option
		for range rng.IntN(3 * n * 2) {
			var set []Option
			for i := range n {
				if rng.IntN(3) == 0 {
					set = append(set, Option{i, rng.IntN(options[i])})
				}
			}
			if len(set) > 0 {
				sets = append(sets, set)
			}
		}
		name := fmt.Sprintf("trial %d: options %v, forbidden %v", trial, options, sets)
		f, err := Search(context.Background(), options, prefer, forbid(sets...))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := Unsat
		pick := make([]int, n)
		for {
			ok := true
			for _, s := range sets {
				if takesAll(pick, s) {
					ok = false
					break
				}
			}
			if ok {
				want = Sat
				break
			}
			i := 0
			for i < n && pick[i] == options[i]-1 {
				pick[i] = 0
				i++
			}
			if i == n {
				break
			}
			pick[i]++
		}
		if f.Status != want {
			t.Fatalf("%s: %v, want %v", name, f.Status, want)
		}
		if f.Rounds != f.Conflicts+1 && f.Status == Sat {
			t.Errorf("%s: %d rounds, %d conflicts", name, f.Rounds, f.Conflicts)
		}
		counts[f.Status]++
	}
	if counts[Sat] < 30 || counts[Unsat] < 30 {
		t.Errorf("sat %d, unsat %d of 300: too few of one to test", counts[Sat], counts[Unsat])
	}
}

func TestSearchBadConflict(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a conflict the assignment does not take: no panic")
		}
	}()
	Search(context.Background(), []int{2}, []int{0}, func(context.Context, []int) (Judgement, error) {
		return Conflict(Option{0, 1}), nil
	})
}
