package histgen

import (
	"math/rand/v2"

	"github.com/isocheck/isocheck/history"
)

// MiniConfig describes a history of mini-transactions (Wei, Xiao, Yang,
// Liu, Yin, Chen and Pan, "Boosting End-to-End Database Isolation Checking
// via Mini-Transactions" (MTC, ICDE 2025), Section III): each transaction
// reads one or two keys and, unless it is read-only, writes every key it
// read right after reading it.
type MiniConfig struct {
	Sessions int     // sessions [20]
	Txns     int     // transactions in all [10000]
	Keys     int     // keys [1000]
	ReadOnly float64 // proportion of read-only transactions [0.2]
	Seed     int64
}

// Mini returns a history of mini-transactions executed one at a time in a
// random interleaving of the sessions, with times that agree with that
// order: it satisfies SSER and so every level. Each write writes the next
// value of its key (1, 2, ...), so every version order is fixed by the
// reads, as MTC intends.
func Mini(cfg MiniConfig) *history.History {
	if cfg.Sessions <= 0 {
		cfg.Sessions = 20
	}
	if cfg.Txns <= 0 {
		cfg.Txns = 10000
	}
	if cfg.Keys <= 0 {
		cfg.Keys = 1000
	}
	if cfg.ReadOnly == 0 {
		cfg.ReadOnly = 0.2
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x3417))
	b := history.NewBuilder(history.Null, "mini")
	b.Grow(cfg.Txns, 4*cfg.Txns)
	keys := make([]history.Key, cfg.Keys)
	for i := range keys {
		keys[i] = b.IntKey(int64(i))
	}
	sessions := make([]int32, cfg.Sessions)
	for i := range sessions {
		sessions[i] = b.IntSession(int64(i))
	}
	current := make([]history.Value, cfg.Keys) // 0: the initial value
	var ops []history.Op
	for t := 0; t < cfg.Txns; t++ {
		ops = ops[:0]
		n := 1 + rng.IntN(2)
		k1 := rng.IntN(cfg.Keys)
		chosen := []int{k1}
		if n == 2 && cfg.Keys > 1 {
			k2 := rng.IntN(cfg.Keys - 1)
			if k2 >= k1 {
				k2++
			}
			chosen = append(chosen, k2)
		}
		readOnly := rng.Float64() < cfg.ReadOnly
		for _, k := range chosen {
			v := current[k]
			if v == 0 {
				v = history.Null
			}
			ops = append(ops, history.Op{Kind: history.Read, Key: keys[k], Value: v})
			if !readOnly {
				if current[k] == 0 {
					current[k] = 1
				} else {
					current[k]++
				}
				ops = append(ops, history.Op{Kind: history.Write, Key: keys[k], Value: current[k]})
			}
		}
		b.AddTxn(history.Txn{
			Session: sessions[rng.IntN(cfg.Sessions)],
			Status:  history.Committed,
			Start:   int64(2 * t),
			End:     int64(2*t + 1),
		}, ops)
	}
	return b.History()
}
