package sqlcheck

import (
	"testing"

	"github.com/isocheck/isocheck/sqlhistory"
)

// CheckUnbudgeted is checkUnbudgeted for the package's external tests:
// their golden files hold minimal counterexamples, which shrinking within
// its wall-clock budget may not reach on a loaded machine (or under the
// race detector).
func CheckUnbudgeted(t testing.TB, h *sqlhistory.History, opts Options) *Result {
	return checkUnbudgeted(t, h, opts)
}
