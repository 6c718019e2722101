package dbtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/isocheck/isocheck/db"
)

// A Server is a database server that an adapter's tests run against when
// the environment names one, and skip without.
type Server struct {
	Env   string // the environment variable holding its DSN
	Name  string // what it is, for the message of a skipped test
	Start string // the command that prints the DSN of a throwaway one
}

// DSN returns the DSN in s.Env, or skips t, saying how to start a server,
// if s.Env is unset.
func (s Server) DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(s.Env)
	if dsn == "" {
		t.Skipf("no %s: export %s=$(%s)", s.Name, s.Env, s.Start)
	}
	return dsn
}

// Context returns a context that ends after a minute or with t.
func Context(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// OpenFunc is an adapter's Open.
type OpenFunc func(context.Context, db.Config) (db.Database, error)

// Open opens the store cfg describes with open, failing t if it cannot,
// and closes it when t ends.
func Open(t testing.TB, open OpenFunc, cfg db.Config) db.Database {
	t.Helper()
	d, err := open(Context(t), cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.DSN, err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Table returns a table name of t's own for tests that share a server:
// prefix then t's name in lower case, with every character but letters,
// digits and underscores made an underscore.
func Table(t testing.TB, prefix string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name()))
	return prefix + name
}
