package check

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/isocheck/isocheck/history"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/resolve"
	"github.com/isocheck/isocheck/verdict"
)

// maxGuessChecks bounds the checks of checkGuessed. A guess wrong about
// a few reads is repaired in as many checks, each as fast as a check of
// a history of unique values; past the bound the complete searches
// decide (the solver for SER, SI, SSER and PC, case by case for RC, RA
// and CC), which cost far more.
const maxGuessChecks = 64

// checkGuessed looks for writers of the reads of r.Choices with which r
// satisfies l, by guessing: each read reads from its likeliest writer
// (rankWriters), and while the check finds a violation, one read its
// evidence names moves to its next likeliest writer: the one whose next
// writer is least less likely than its present one. A history the
// database got right is usually satisfied by the first guess, or after
// a few moves where a transaction's recorded end came late after its
// commit.
//
// It returns the satisfied Result, with the writers (Picks), which
// witness that l holds; a Result without a verdict when ctx ended; and
// nil otherwise (no guess within maxGuessChecks checks, or a violation
// that names no read of a choice), for a complete search to decide: a
// violated guess says nothing about the others.
func checkGuessed(ctx context.Context, r *resolve.Resolution, l level.Level, opts Options) (*Result, error) {
	// Guess among the writers CC's axioms leave, even for RA and RC: a
	// database that read an overwritten version is rare, and a guess
	// that it did is likelier wrong.
	cs := pruneChoices(ctx, r, level.CC)
	if err := ctx.Err(); err != nil {
		return noVerdict(ctx, &Result{Level: l, Polygraph: nodesOf(r)}, context.Cause(ctx))
	}
	ranks, scores := rankWriters(r, cs), writerScores(r, cs)
	at := make(map[int32]int, len(cs))
	for i, c := range cs {
		at[c.Op] = i
	}
	next := make([]int, len(cs)) // each choice's place in its rank
	picks := make([]resolve.Pick, len(cs))
	snapshot := snapshotWriters(r, cs)
	for round := 1; round <= maxGuessChecks; round++ {
		for i, c := range cs {
			picks[i] = resolve.Pick{Op: c.Op, Writer: c.Writers[ranks[i][next[i]]]}
		}
		if round == 2 && snapshot != nil {
			// Once: the writers of snapshots taken as transactions began.
			alt := slices.Clone(picks)
			for i, c := range cs {
				if snapshot[i] >= 0 {
					alt[i].Writer = c.Writers[snapshot[i]]
				}
			}
			res, err := checkPicked(ctx, r, l, opts, alt)
			switch {
			case err != nil:
				return nil, err
			case res.Verdict == verdict.Satisfied:
				res.Picks = alt
				res.Stats.Choices, res.Stats.ChoiceRounds = len(cs), round
				return res, nil
			case res.Verdict == verdict.Unknown && res.Stopped:
				return res, nil
			}
			round++
		}
		res, err := checkPicked(ctx, r, l, opts, picks)
		switch {
		case err != nil:
			return nil, err
		case res.Verdict == verdict.Satisfied:
			res.Picks = slices.Clone(picks)
			res.Stats.Choices, res.Stats.ChoiceRounds = len(cs), round
			return res, nil
		case res.Verdict == verdict.Unknown && res.Stopped:
			return res, nil
		case res.Verdict == verdict.Unknown:
			return nil, nil
		}
		// Move the named read that loses least by moving.
		move, loss := -1, math.Inf(1)
		for _, p := range namedPicks(r, picks, res) {
			i := at[p.Op]
			if next[i]+1 >= len(ranks[i]) {
				continue
			}
			d := scores[i][ranks[i][next[i]+1]] - scores[i][ranks[i][next[i]]]
			if d < loss {
				move, loss = i, d
			}
		}
		if move < 0 {
			return nil, nil
		}
		next[move]++
	}
	return nil, nil
}

// rankWriters returns, for each choice of cs (r's, pruned), the indices
// of its writers from the likeliest to the least likely. First the
// writer likelyWriters names or, where the reader and its writers have
// times, the one that ended last before the reader ended (a database
// commits in about the order its transactions end, and a read sees what
// committed before it); then the others by writerScores.
func rankWriters(r *resolve.Resolution, cs []resolve.Choice) [][]int {
	h := r.History
	n := int32(len(h.Txns))
	first := likelyWriters(r, cs)
	scores := writerScores(r, cs)
	ranks := make([][]int, len(cs))
	for i, c := range cs {
		if rd := &h.Txns[c.Reader]; rd.HasTime() {
			best, bestEnd := -1, int64(math.MinInt64)
			for j, w := range c.Writers {
				if w >= n {
					if best < 0 {
						best = j // the initial state, before every end
					}
					continue
				}
				if tx := &h.Txns[w]; tx.HasTime() && tx.End <= rd.End && tx.End > bestEnd {
					best, bestEnd = j, tx.End
				}
			}
			if best >= 0 {
				first[i] = best
			}
		}
		rank := make([]int, 0, len(c.Writers))
		rank = append(rank, first[i])
		for j := range c.Writers {
			if j != first[i] {
				rank = append(rank, j)
			}
		}
		slices.SortStableFunc(rank[1:], func(a, b int) int { return cmp.Compare(scores[i][a], scores[i][b]) })
		ranks[i] = rank
	}
	return ranks
}

// writerScores returns, for each choice of cs and each of its writers,
// how unlikely the read is to have read from it (lower is likelier).
// Where the reader and the writer have times: a writer that ended before
// the reader ended scores the time between the ends; one that began
// before the reader ended but ended after it (its end recorded late
// after its commit) the time its end came after the reader's; one that
// began after the reader ended, far more. The initial state scores as
// a writer that ended long before. Without times, the distance between
// the writer's and the reader's places in topoPositions' order.
func writerScores(r *resolve.Resolution, cs []resolve.Choice) [][]float64 {
	h := r.History
	n := int32(len(h.Txns))
	pos := topoPositions(r)
	const far = 1e18
	scores := make([][]float64, len(cs))
	for i, c := range cs {
		rd := &h.Txns[c.Reader]
		sc := make([]float64, len(c.Writers))
		for j, w := range c.Writers {
			switch {
			case w >= n:
				sc[j] = far / 2
			case rd.HasTime() && h.Txns[w].HasTime():
				tx := &h.Txns[w]
				switch {
				case tx.End <= rd.End:
					sc[j] = float64(rd.End - tx.End)
				case tx.Start < rd.End:
					sc[j] = float64(tx.End - rd.End)
				default:
					sc[j] = far + float64(tx.Start-rd.End)
				}
			default:
				sc[j] = math.Abs(float64(pos[c.Reader] - pos[w]))
			}
		}
		scores[i] = sc
	}
	return scores
}

// snapshotWriters returns, for each choice of cs whose reader has times,
// the index of the candidate that installed the key's latest version to
// end before the reader began (a snapshot taken as a transaction begins,
// as snapshot isolation takes it), or -1 when that version is not a
// candidate's; nil when that names no writer other than rankWriters'
// first.
func snapshotWriters(r *resolve.Resolution, cs []resolve.Choice) []int {
	h := r.History
	versions := make(map[history.Key][]int32)
	for _, c := range cs {
		versions[c.Key] = nil
	}
	for t := range h.Txns {
		if !r.Installs(int32(t)) || !h.Txns[t].HasTime() {
			continue
		}
		for _, op := range h.OpsOf(t) {
			if vs, ok := versions[op.Key]; ok && op.Kind == history.Write && (len(vs) == 0 || vs[len(vs)-1] != int32(t)) {
				versions[op.Key] = append(vs, int32(t))
			}
		}
	}
	for _, vs := range versions {
		slices.SortStableFunc(vs, func(a, b int32) int { return cmp.Compare(h.Txns[a].End, h.Txns[b].End) })
	}
	out := make([]int, len(cs))
	ranks := rankWriters(r, cs)
	differs := false
	for i, c := range cs {
		out[i] = -1
		rd := &h.Txns[c.Reader]
		if !rd.HasTime() {
			continue
		}
		vs := versions[c.Key]
		at, _ := slices.BinarySearchFunc(vs, rd.Start, func(w int32, t int64) int { return cmp.Compare(h.Txns[w].End, t) })
		for at > 0 && vs[at-1] == c.Reader {
			at--
		}
		if at > 0 {
			out[i] = slices.Index(c.Writers, vs[at-1])
		} else {
			out[i] = slices.IndexFunc(c.Writers, func(w int32) bool { return int(w) >= len(h.Txns) })
		}
		differs = differs || out[i] >= 0 && out[i] != ranks[i][0]
	}
	if !differs {
		return nil
	}
	return out
}
