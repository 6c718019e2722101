// Package twitter is BenchBase's Twitter application as an SQL client
// program for package sqlrun, as in Bouajjani, Enea and Román-Calvo, "On
// the Complexity of Checking Mixed Isolation Levels for SQL Transactions"
// (CAV 2025), §6: users who follow each other and post tweets, and five
// transactions, GetTweet, GetTweetsFromFollowing, GetFollowers,
// GetUserTweets and InsertTweet, the one important transaction (it runs at
// the strong level of a mix such as "ser+rc").
//
// As in the paper, queries are simple predicates over one table each:
// where BenchBase joins, the transaction juxtaposes two queries (the users
// someone follows, then their tweets). InsertTweet inserts into tweets
// (BenchBase's added_tweets, which nothing reads), so that the readers of
// tweets see the new ones.
package twitter

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/isocheck/isocheck/predicate"
	"github.com/isocheck/isocheck/sqlrun"
)

// Config is the scale of the initial data.
type Config struct {
	// Users is the number of users; Follows the number of users each
	// follows; Tweets the number of initial tweets.
	Users, Follows, Tweets int
	// Limit bounds how many followers or followees a transaction looks
	// at (BenchBase's LIMIT 20), taken from the first rows returned.
	Limit int
}

// DefaultConfig is a small scale, for small histories.
var DefaultConfig = Config{Users: 20, Follows: 3, Tweets: 20, Limit: 20}

// App is the Twitter application.
type App struct {
	cfg Config
}

// New returns the application at scale cfg (zero fields take
// DefaultConfig's).
func New(cfg Config) *App {
	if cfg.Users <= 0 {
		cfg.Users = DefaultConfig.Users
	}
	if cfg.Follows <= 0 {
		cfg.Follows = DefaultConfig.Follows
	}
	cfg.Follows = min(cfg.Follows, cfg.Users-1)
	if cfg.Tweets <= 0 {
		cfg.Tweets = DefaultConfig.Tweets
	}
	if cfg.Limit <= 0 {
		cfg.Limit = DefaultConfig.Limit
	}
	return &App{cfg: cfg}
}

// Name is "twitter".
func (a *App) Name() string { return "twitter" }

// Tables are BenchBase's tables but added_tweets (follows and followers
// hold the same edges, each indexed its way).
func (a *App) Tables() []sqlrun.Table {
	return []sqlrun.Table{
		{Name: "user_profiles", Key: []string{"uid"}, Columns: []sqlrun.Column{
			{Name: "uid", Type: sqlrun.Int}, {Name: "name", Type: sqlrun.Text},
			{Name: "email", Type: sqlrun.Text}, {Name: "followers", Type: sqlrun.Int}}},
		{Name: "follows", Key: []string{"f1", "f2"}, Columns: []sqlrun.Column{
			{Name: "f1", Type: sqlrun.Int}, {Name: "f2", Type: sqlrun.Int}}},
		{Name: "followers", Key: []string{"f1", "f2"}, Columns: []sqlrun.Column{
			{Name: "f1", Type: sqlrun.Int}, {Name: "f2", Type: sqlrun.Int}}},
		{Name: "tweets", Key: []string{"id"}, Columns: []sqlrun.Column{
			{Name: "id", Type: sqlrun.Int}, {Name: "uid", Type: sqlrun.Int},
			{Name: "text", Type: sqlrun.Text}, {Name: "createdate", Type: sqlrun.Int}}},
	}
}

// Load returns the users, who follows whom (each user Follows random
// others) and the initial tweets, with ids 1 to Tweets.
func (a *App) Load(rng *rand.Rand) map[string][]predicate.Row {
	n := a.cfg.Users
	rows := map[string][]predicate.Row{}
	followers := make([]int, n+1)
	for u := 1; u <= n; u++ {
		follows := 0
		for _, v := range rng.Perm(n) {
			v++
			if v == u {
				continue
			}
			if follows == a.cfg.Follows {
				break
			}
			follows++
			rows["follows"] = append(rows["follows"], predicate.Row{"f1": predicate.Int(int64(u)), "f2": predicate.Int(int64(v))})
			rows["followers"] = append(rows["followers"], predicate.Row{"f1": predicate.Int(int64(v)), "f2": predicate.Int(int64(u))})
			followers[v]++
		}
	}
	for u := 1; u <= n; u++ {
		rows["user_profiles"] = append(rows["user_profiles"], predicate.Row{
			"uid":       predicate.Int(int64(u)),
			"name":      predicate.String(fmt.Sprintf("user%d", u)),
			"email":     predicate.String(fmt.Sprintf("user%d@example.com", u)),
			"followers": predicate.Int(int64(followers[u])),
		})
	}
	for i := 1; i <= a.cfg.Tweets; i++ {
		rows["tweets"] = append(rows["tweets"], predicate.Row{
			"id":         predicate.Int(int64(i)),
			"uid":        predicate.Int(int64(1 + rng.IntN(n))),
			"text":       predicate.String(randomText(rng)),
			"createdate": predicate.Int(int64(i)),
		})
	}
	return rows
}

var words = []string{"isolation", "snapshot", "serializable", "commit", "abort", "it's", "row", "tweet"}

func randomText(rng *rand.Rand) string {
	w := make([]string, 2+rng.IntN(3))
	for i := range w {
		w[i] = words[rng.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

// The transactions' names.
const (
	GetTweet               = "GetTweet"
	GetTweetsFromFollowing = "GetTweetsFromFollowing"
	GetFollowers           = "GetFollowers"
	GetUserTweets          = "GetUserTweets"
	InsertTweet            = "InsertTweet"
)

// Next returns a random transaction, in BenchBase's default mix:
// GetTweet 0.07%, GetTweetsFromFollowing 0.07%, GetFollowers 7.6%,
// GetUserTweets 91.26%, InsertTweet 1%, made less lopsided here so that
// small histories have every kind and writes: 10%, 20%, 20%, 30%, 20%.
func (a *App) Next(rng *rand.Rand) sqlrun.Txn {
	user := int64(1 + rng.IntN(a.cfg.Users))
	switch p := rng.IntN(100); {
	case p < 10:
		id := int64(1 + rng.IntN(a.cfg.Tweets))
		return sqlrun.Txn{Name: GetTweet, Run: func(tx *sqlrun.Tx) error {
			_, err := tx.Select("tweets", predicate.KeyEquals("id", predicate.Int(id)))
			return err
		}}
	case p < 30:
		return sqlrun.Txn{Name: GetTweetsFromFollowing, Run: func(tx *sqlrun.Tx) error {
			follows, err := tx.Select("follows", predicate.KeyEquals("f1", predicate.Int(user)))
			if err != nil || len(follows) == 0 {
				return err
			}
			_, err = tx.Select("tweets", in("uid", column(follows, "f2", a.cfg.Limit)))
			return err
		}}
	case p < 50:
		return sqlrun.Txn{Name: GetFollowers, Run: func(tx *sqlrun.Tx) error {
			followers, err := tx.Select("followers", predicate.KeyEquals("f1", predicate.Int(user)))
			if err != nil || len(followers) == 0 {
				return err
			}
			_, err = tx.Select("user_profiles", in("uid", column(followers, "f2", a.cfg.Limit)))
			return err
		}}
	case p < 80:
		return sqlrun.Txn{Name: GetUserTweets, Run: func(tx *sqlrun.Tx) error {
			_, err := tx.Select("tweets", predicate.KeyEquals("uid", predicate.Int(user)))
			return err
		}}
	}
	text := randomText(rng)
	return sqlrun.Txn{Name: InsertTweet, Important: true, Run: func(tx *sqlrun.Tx) error {
		id := tx.NewID()
		return tx.Insert("tweets", predicate.Row{
			"id": predicate.Int(id), "uid": predicate.Int(user),
			"text": predicate.String(text), "createdate": predicate.Int(id),
		})
	}}
}

// column returns the values of col in the first limit rows, in order of
// the values.
func column(rows []predicate.Row, col string, limit int) []predicate.Value {
	var vals []predicate.Value
	for _, r := range rows {
		vals = append(vals, r[col])
	}
	sortValues(vals)
	return vals[:min(limit, len(vals))]
}

func sortValues(vals []predicate.Value) {
	for i := 1; i < len(vals); i++ {
		for j := i; j > 0; j-- {
			if c, _ := predicate.Compare(vals[j-1], vals[j]); c <= 0 {
				break
			}
			vals[j-1], vals[j] = vals[j], vals[j-1]
		}
	}
}

// in returns the predicate col IN (vals...).
func in(col string, vals []predicate.Value) *predicate.Expr {
	lits := make([]string, len(vals))
	for i, v := range vals {
		lits[i] = v.String()
	}
	return predicate.MustParse(col + " IN (" + strings.Join(lits, ", ") + ")")
}
