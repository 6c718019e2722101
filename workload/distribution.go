package workload

import (
	"fmt"
	"math/rand/v2"
)

// Distribution is how a workload draws the key of an operation.
type Distribution uint8

const (
	// Uniform draws every key with the same probability.
	Uniform Distribution = iota
	// Zipf draws keys from a Zipf distribution, key 0 the most frequent.
	Zipf
	// Hotspot puts 80% of the operations on the first 20% of the keys,
	// uniformly within each part.
	Hotspot
)

var distNames = [...]string{Uniform: "uniform", Zipf: "zipf", Hotspot: "hotspot"}

func (d Distribution) String() string {
	if int(d) < len(distNames) {
		return distNames[d]
	}
	return fmt.Sprintf("Distribution(%d)", uint8(d))
}

// ParseDistribution reads "uniform", "zipf" (or "zipfian") or "hotspot".
func ParseDistribution(s string) (Distribution, error) {
	for d, n := range distNames {
		if s == n {
			return Distribution(d), nil
		}
	}
	if s == "zipfian" {
		return Zipf, nil
	}
	return 0, fmt.Errorf("unknown key distribution %q (want uniform, zipf or hotspot)", s)
}

// zipfS is the exponent of the Zipf key distribution. rand.Zipf needs
// s > 1; 1.01 is close to YCSB's 0.99.
const zipfS = 1.01

// Drawer returns a function that draws keys in [0, keys) from d with
// rng, the same keys for the same state of rng.
func (d Distribution) Drawer(rng *rand.Rand, keys int) func() int64 {
	switch {
	case d == Zipf && keys > 1:
		z := rand.NewZipf(rng, zipfS, 1, uint64(keys-1))
		return func() int64 { return int64(z.Uint64()) }
	case d == Hotspot && keys >= 5:
		hot := keys / 5
		return func() int64 {
			if rng.Float64() < 0.8 {
				return int64(rng.IntN(hot))
			}
			return int64(hot + rng.IntN(keys-hot))
		}
	}
	return func() int64 { return int64(rng.IntN(keys)) }
}

// MaxKeys bounds the keys of a workload: histories number keys with
// 32-bit integers.
const MaxKeys = 1<<31 - 1
