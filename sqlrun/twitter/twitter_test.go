package twitter_test

import (
	"testing"

	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/sqlruntest"
	"github.com/isocheck/isocheck/sqlrun/twitter"
)

// TestRun runs Twitter at mixed levels on every database at hand and
// checks the histories.
func TestRun(t *testing.T) {
	cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 10, Seed: 1, Prefix: "twittertest_"}
	sqlruntest.RunApp(t, twitter.New(twitter.DefaultConfig), []string{"si+rc", "random"}, cfg, nil)
}
