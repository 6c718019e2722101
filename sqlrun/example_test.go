package sqlrun_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/isocheck/isocheck/db/sqlite"
	"github.com/isocheck/isocheck/sqlrun"
	"github.com/isocheck/isocheck/sqlrun/twitter"
)

// Run BenchBase's Twitter on an embedded SQLite database: 3 sessions of 10
// transactions, InsertTweet at SI and the others at RC, recorded as a SQL
// history.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "sqlrun-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	d, err := sqlite.OpenSQL(ctx, "sqlite://"+filepath.Join(dir, "twitter.sqlite"))
	if err != nil {
		panic(err)
	}
	defer d.Close()

	levels, err := sqlrun.ParseLevelMix("ser") // SQLite's only level
	if err != nil {
		panic(err)
	}
	cfg := sqlrun.Config{Sessions: 3, TxnsPerSession: 10, Seed: 1, Levels: levels}
	h, err := sqlrun.Run(ctx, d, twitter.New(twitter.DefaultConfig), cfg)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d sessions, %d transactions, %d initial rows\n", len(h.Sessions), len(h.Txns), len(h.Initial))
	// Which transactions ran at which level.
	count := map[string]int{}
	for _, t := range h.Txns {
		kind, _, _ := strings.Cut(t.Name, "-") // names are KIND-SESSION.INDEX
		count[fmt.Sprintf("%s at %v, %v", kind, t.Level, t.Status)]++
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		fmt.Println(k+":", count[k])
	}
	// Output:
	// 3 sessions, 30 transactions, 160 initial rows
	// GetFollowers at SER, committed: 5
	// GetTweet at SER, committed: 4
	// GetTweetsFromFollowing at SER, committed: 6
	// GetUserTweets at SER, committed: 9
	// InsertTweet at SER, committed: 6
}
