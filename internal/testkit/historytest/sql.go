package historytest

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlhistory"
)

// SQLConfig bounds the histories RandomSQL generates. Zero sizes and
// probabilities take the defaults in brackets; a negative probability is
// zero.
type SQLConfig struct {
	Txns     int // 2 to Txns transactions, aborted ones included [6]
	Sessions int // 2 to Sessions sessions [3]
	Keys     int // 2 to Keys keys per table [4]
	Tables   int // 1 to Tables tables [2]
	Events   int // 1 to Events events per transaction [3]
	// Levels are the levels transactions choose theirs from
	// [sqlhistory.Levels()].
	Levels []level.Level
	// InitialProb is the probability that a key has an initial row [0.6].
	InitialProb float64
	// AbortProb is the probability that a transaction aborts [0.1].
	AbortProb float64
	// UnknownProb is the probability that a transaction's outcome is
	// reported as unknown (it took effect or not, at random) [0.1].
	UnknownProb float64
	// StaleProb is the probability that a transaction reads from an
	// older snapshot than the latest commit [0.8].
	StaleProb float64
	// FreshProb is the probability that an event reads from the latest
	// commit rather than its transaction's snapshot, as under read
	// committed [0.2].
	FreshProb float64
	// FaultProb is the probability that a row a read event selects is
	// perturbed (left out, or an older or aborted version listed
	// instead), and that a stale snapshot may be older than the
	// session's last commit [0.2].
	FaultProb float64
}

func (c SQLConfig) withDefaults() SQLConfig {
	size := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
		*v = max(*v, 2)
	}
	size(&c.Txns, 6)
	size(&c.Sessions, 3)
	size(&c.Keys, 4)
	if c.Tables <= 0 {
		c.Tables = 2
	}
	if c.Events <= 0 {
		c.Events = 3
	}
	if len(c.Levels) == 0 {
		c.Levels = sqlhistory.Levels()
	}
	prob := func(p *float64, d float64) {
		switch {
		case *p == 0:
			*p = d
		case *p < 0:
			*p = 0
		}
	}
	prob(&c.InitialProb, 0.6)
	prob(&c.AbortProb, 0.1)
	prob(&c.UnknownProb, 0.1)
	prob(&c.StaleProb, 0.8)
	prob(&c.FreshProb, 0.2)
	prob(&c.FaultProb, 0.2)
	return c
}

// sqlVersion is a version of a row in the simulated store.
type sqlVersion struct {
	name string
	row  predicate.Row // nil: absent
}

// RandomSQL returns a small random SQL history for property tests: 2 to
// cfg.Sessions sessions, 2 to cfg.Txns transactions, 1 to cfg.Tables
// tables of 2 to cfg.Keys keys, rows {id: key, v: 0..3, c: 0..3 or NULL}.
// A transaction has a level from cfg.Levels and 1 to cfg.Events events:
// selects, updates and deletes with random predicates (comparisons of v
// and c, IN, BETWEEN, IS NULL, id = key, combined with AND, OR and NOT),
// and inserts (upserts).
//
// The history is that of a simulated store that keeps a log of committed
// states. A transaction reads from a snapshot: the latest state, or with
// cfg.StaleProb an older one (not older than its session's last commit),
// and, with cfg.FreshProb, an event reads the latest state instead (as
// under read committed); it sees its own writes over it. Its writes
// apply to the latest state when it commits, so lost updates, write skew
// and fractured reads happen, and whether the history is consistent
// depends on the levels. With cfg.FaultProb a read's result is
// perturbed. Aborted transactions are not applied; unknown ones are, or
// not, at random. Every version has a unique name. The result depends
// only on rng's state and cfg.
func RandomSQL(rng *rand.Rand, cfg SQLConfig) *sqlhistory.History {
	cfg = cfg.withDefaults()
	nTables := 1 + rng.IntN(cfg.Tables)
	nSessions := 2 + rng.IntN(cfg.Sessions-1)
	nTxns := 2 + rng.IntN(cfg.Txns-1)
	tables := make([]string, nTables)
	keys := make([][]int, nTables)
	type rk struct {
		table, key int
	}
	b := sqlhistory.NewBuilder("random")
	state := map[rk]sqlVersion{}
	var allVersions = map[rk][]sqlVersion{} // every version written, aborted ones included
	for t := range tables {
		tables[t] = string(rune('a' + t))
		nk := 2 + rng.IntN(cfg.Keys-1)
		for k := 1; k <= nk; k++ {
			keys[t] = append(keys[t], k)
			if rng.Float64() < cfg.InitialProb {
				v := sqlVersion{name: fmt.Sprintf("init.%s%d", tables[t], k), row: randomRow(rng, k)}
				if err := b.AddInitial(tables[t], strconv.Itoa(k), v.name, v.row, 0); err != nil {
					panic(err)
				}
				state[rk{t, k}] = v
				allVersions[rk{t, k}] = append(allVersions[rk{t, k}], v)
			}
		}
	}
	// log[i] is the state after i commits.
	log := []map[rk]sqlVersion{state}
	sessionCommits := make([]int, nSessions) // log index after the session's last commit
	for i := 0; i < nTxns; i++ {
		name := "T" + strconv.Itoa(i)
		s := i % nSessions // sessions take turns, so others commit in between
		if rng.IntN(4) == 0 {
			s = rng.IntN(nSessions)
		}
		spec := sqlhistory.TxnSpec{
			Name:    name,
			Session: "s" + strconv.Itoa(s),
			Level:   cfg.Levels[rng.IntN(len(cfg.Levels))],
			Status:  sqlhistory.Committed,
		}
		latest := len(log) - 1
		snap := latest
		if rng.Float64() < cfg.StaleProb {
			from := sessionCommits[s]
			if rng.Float64() < cfg.FaultProb {
				from = 0 // not even the session's own last commit
			}
			if from < latest {
				snap = from + rng.IntN(latest-from)
			}
		}
		table := rng.IntN(nTables) // most events are on one table
		own := map[rk]sqlVersion{}
		var ownOrder []rk
		view := func(st map[rk]sqlVersion, x rk) (sqlVersion, bool, bool) {
			if v, ok := own[x]; ok {
				return v, true, true
			}
			v, ok := st[x]
			return v, ok, false
		}
		nEvents := 1 + rng.IntN(cfg.Events)
		for e := 0; e < nEvents; e++ {
			t := table
			if rng.IntN(4) == 0 {
				t = rng.IntN(nTables)
			}
			st := log[snap]
			if rng.Float64() < cfg.FreshProb {
				st = log[len(log)-1]
			}
			es := sqlhistory.EventSpec{Table: tables[t]}
			write := func(k int, row predicate.Row) {
				x := rk{t, k}
				v := sqlVersion{name: fmt.Sprintf("%s.%d.%s%d", name, e+1, tables[t], k), row: row}
				if _, ok := own[x]; !ok {
					ownOrder = append(ownOrder, x)
				}
				own[x] = v
				allVersions[x] = append(allVersions[x], v)
				es.Rows[len(es.Rows)-1].Write = v.name
			}
			switch p := rng.IntN(20); {
			case p < 4:
				es.Kind = sqlhistory.Insert
				first := rng.IntN(len(keys[t]))
				for j := 0; j <= rng.IntN(2) && first+j < len(keys[t]); j++ {
					k := keys[t][first+j]
					row := randomRow(rng, k)
					es.Rows = append(es.Rows, sqlhistory.RowSpec{Key: strconv.Itoa(k), Row: row})
					write(k, row)
				}
			default:
				es.Kind = sqlhistory.Select
				switch {
				case p >= 18:
					es.Kind = sqlhistory.Delete
				case p >= 10:
					es.Kind = sqlhistory.Update
				}
				es.Where = randomWhere(rng, keys[t])
				if es.Kind != sqlhistory.Select && rng.IntN(2) == 0 {
					// Most applications update and delete by key.
					es.Where = predicate.KeyEquals("id", predicate.Int(int64(keys[t][rng.IntN(len(keys[t]))])))
				}
				setV := rng.IntN(4)
				for _, k := range keys[t] {
					v, ok, local := view(st, rk{t, k})
					if !ok || v.row == nil || !es.Where.Eval(v.row) {
						continue
					}
					read := v.name
					if !local && rng.Float64() < cfg.FaultProb {
						if rng.IntN(2) == 0 {
							continue // left out
						}
						old := allVersions[rk{t, k}]
						read = old[rng.IntN(len(old))].name
					}
					rs := sqlhistory.RowSpec{Key: strconv.Itoa(k), Read: read}
					es.Rows = append(es.Rows, rs)
					switch es.Kind {
					case sqlhistory.Update:
						row := predicate.Row{"id": v.row["id"], "v": predicate.Int(int64(setV)), "c": v.row["c"]}
						es.Rows[len(es.Rows)-1].Row = row
						write(k, row)
					case sqlhistory.Delete:
						write(k, nil)
					}
				}
			}
			spec.Events = append(spec.Events, es)
		}
		applied := true
		switch r := rng.Float64(); {
		case r < cfg.AbortProb:
			spec.Status = sqlhistory.Aborted
			applied = false
		case r < cfg.AbortProb+cfg.UnknownProb:
			spec.Status = sqlhistory.Unknown
			applied = rng.IntN(2) == 0
		}
		if applied && len(ownOrder) > 0 {
			next := make(map[rk]sqlVersion, len(log[len(log)-1])+len(ownOrder))
			for x, v := range log[len(log)-1] {
				next[x] = v
			}
			for _, x := range ownOrder {
				next[x] = own[x]
			}
			log = append(log, next)
		}
		if applied {
			sessionCommits[s] = len(log) - 1
		}
		if _, err := b.AddTxn(spec); err != nil {
			panic(err)
		}
	}
	h, err := b.History()
	if err != nil {
		panic(err)
	}
	return h
}

// randomRow returns a row of key k.
func randomRow(rng *rand.Rand, k int) predicate.Row {
	c := predicate.Int(int64(rng.IntN(4)))
	if rng.IntN(4) == 0 {
		c = predicate.Null()
	}
	return predicate.Row{"id": predicate.Int(int64(k)), "v": predicate.Int(int64(rng.IntN(4))), "c": c}
}

// randomWhere returns a random predicate over rows of the given keys, nil
// (no WHERE clause) now and then.
func randomWhere(rng *rand.Rand, keys []int) *predicate.Expr {
	if rng.IntN(5) == 0 {
		return nil
	}
	return predicate.MustParse(randomCond(rng, keys, 2))
}

func randomCond(rng *rand.Rand, keys []int, depth int) string {
	if depth > 0 && rng.IntN(3) == 0 {
		a, b := randomCond(rng, keys, depth-1), randomCond(rng, keys, depth-1)
		switch rng.IntN(3) {
		case 0:
			return "(" + a + ") AND (" + b + ")"
		case 1:
			return "(" + a + ") OR (" + b + ")"
		}
		return "NOT (" + a + ")"
	}
	n := func() int { return rng.IntN(4) }
	switch rng.IntN(10) {
	case 0:
		return "v = c"
	case 1:
		return "v < c"
	case 2:
		return fmt.Sprintf("v IN (%d, %d, %d)", n(), n(), n())
	case 3:
		lo := n()
		return fmt.Sprintf("v BETWEEN %d AND %d", lo, lo+1+rng.IntN(2))
	case 4:
		return []string{"c IS NULL", "c IS NOT NULL"}[rng.IntN(2)]
	case 5:
		return []string{"v IS NULL", "v IS NOT NULL"}[rng.IntN(2)]
	case 6:
		return fmt.Sprintf([]string{"id = %d", "id <> %d"}[rng.IntN(2)], keys[rng.IntN(len(keys))])
	case 7:
		return fmt.Sprintf("v <= %d", n())
	case 8:
		return fmt.Sprintf("v >= %d", n())
	}
	return fmt.Sprintf("v = %d", n())
}
