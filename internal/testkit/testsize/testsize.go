// Package testsize says how much the tests that draw many cases do: the
// property tests that compare thousands of random histories or programs
// with the brute-force reference, the exhaustive explorations and the
// scale runs. `go test ./...` runs them with a smaller count that still
// reaches every verdict (a few hundred cases rather than thousands), so
// that the whole suite takes minutes; `make test-long` sets
// ISOCHECK_LONG=1 and they run in full.
package testsize

import "os"

// Env is the environment variable that asks for the full counts: "1"
// does.
const Env = "ISOCHECK_LONG"

// Long reports whether the full counts were asked for ($ISOCHECK_LONG is
// 1). It reads only the environment, so a flag's default may call it.
func Long() bool { return os.Getenv(Env) == "1" }

// N returns long when the full counts were asked for, def otherwise:
// the number of cases a test draws, or a flag's default.
func N(def, long int) int {
	if Long() {
		return long
	}
	return def
}
