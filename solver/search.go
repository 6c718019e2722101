package solver

import "context"

// Status is an answer about an assignment, or about a whole search.
type Status int8

const (
	// Unknown: no answer (the theory could not tell).
	Unknown Status = iota
	// Sat: the assignment satisfies the theory.
	Sat
	// Unsat: the assignment violates the theory; of a search, every
	// assignment does.
	Unsat
)

func (s Status) String() string {
	switch s {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	}
	return "unknown"
}

// Option is option Option of choice Choice.
type Option struct{ Choice, Option int }

// Judgement is a theory's answer about one assignment.
type Judgement struct {
	Status Status
	// Conflict, when Unsat, is the part of the assignment the violation
	// needs: options it takes that violate the theory together, whatever
	// the other choices take. The search rules out every assignment that
	// takes them all (the theory's explanation, a blocking clause). An
	// empty Conflict means violated whatever is chosen.
	Conflict []Option
}

// Consistent is the Judgement that an assignment satisfies the theory.
func Consistent() Judgement { return Judgement{Status: Sat} }

// Conflict is the Judgement that an assignment violates the theory
// through the options opts, which it takes, alone: none of them,
// whatever is chosen.
func Conflict(opts ...Option) Judgement { return Judgement{Status: Unsat, Conflict: opts} }

// Undecided is the Judgement that the theory cannot tell: the search
// ends without an answer.
func Undecided() Judgement { return Judgement{} }

// Theory judges an assignment of one option per choice (pick[i] is the
// option of choice i). An error ends the search with that error.
type Theory func(ctx context.Context, pick []int) (Judgement, error)

// Found is the answer of Search.
type Found struct {
	// Status is Sat when Pick satisfies the theory; Unsat when every
	// assignment was ruled out, or the theory found a conflict of no
	// option; Unknown when the theory could not tell about Pick, ctx
	// ended or the theory erred.
	Status Status
	// Pick is the last assignment judged (nil when none was, or Unsat).
	Pick []int
	// Rounds counts the assignments judged, Conflicts the assignments
	// ruled out by the theory's conflicts (rules).
	Rounds, Conflicts int
}

// Search looks for an assignment of one option to each choice, choice i
// having options[i] options (at least one), that satisfies theory: a
// lazy search in the manner of satisfiability modulo theories (the
// offline, lemmas-on-demand loop of Sebastiani, "Lazy Satisfiability
// Modulo Theories", JSAT 3, 2007). A SAT solver (gini) proposes an
// assignment that no conflict so far rules out; the theory judges it;
// each conflict it explains becomes a clause that rules out every
// assignment taking its options together; this repeats until the theory
// is satisfied, or it cannot tell, or no assignment is left (Unsat).
//
// Choice i first takes option prefer[i], and so does every choice no
// conflict mentions, without a call to the SAT solver: a theory that is
// satisfied by the caller's guess costs one round. Afterwards the
// solver keeps the preferred options where the conflicts leave it free
// to.
//
// check uses Search to choose, for the reads of a history whose values
// repeat, the writers each read from, with the level's own check of the
// history as the theory. That check is polynomial for RC, RA and CC
// when every read's writer is given (Biswas and Enea, "On the
// Complexity of Checking Transactional Consistency", OOPSLA 2019,
// Section 3), while choosing writers is NP-hard in general: for a
// register's linearizability (Gibbons and Korach, "Testing Shared
// Memories", SIAM Journal on Computing 26(4), 1997) and for causal
// consistency (Bouajjani, Enea, Guerraoui and Hamza, "On Verifying
// Causal Consistency", POPL 2017). So a search may take many rounds
// where the options must be guessed jointly.
//
// Search checks ctx before each round and while the SAT solver runs;
// when ctx ends first it returns ErrGaveUp wrapping the reason. An error
// of the theory is returned as it is. Found's counts hold either way.
func Search(ctx context.Context, options, prefer []int, theory Theory) (Found, error) {
	var f Found
	p := newPicker(options, prefer)
	for {
		if ctx.Err() != nil {
			return f, ctxGaveUp(ctx)
		}
		pick, ok, err := p.next(ctx)
		if err != nil {
			return f, err
		}
		if !ok {
			f.Status, f.Pick = Unsat, nil
			return f, nil
		}
		f.Rounds++
		f.Pick = pick
		j, err := theory(ctx, pick)
		if err != nil {
			return f, err
		}
		switch j.Status {
		case Sat:
			f.Status = Sat
			return f, nil
		case Unsat:
			if len(j.Conflict) == 0 {
				f.Status, f.Pick = Unsat, nil
				return f, nil
			}
			for _, o := range j.Conflict {
				if o.Choice < 0 || o.Choice >= len(pick) || pick[o.Choice] != o.Option {
					panic("solver: a conflict takes an option the assignment does not")
				}
			}
			p.rule(j.Conflict)
			f.Conflicts++
		default:
			return f, nil
		}
	}
}
