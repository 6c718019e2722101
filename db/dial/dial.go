// Package dial opens a database by its DSN, choosing the adapter by the
// DSN's scheme. It is the one place that knows every adapter.
package dial

import (
	"context"
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/etcd"
	"github.com/isocheck/isocheck/db/mysql"
	"github.com/isocheck/isocheck/db/postgres"
	"github.com/isocheck/isocheck/db/sim"
	"github.com/isocheck/isocheck/db/sqlite"
)

// An adapter opens one kind of database.
type adapter struct {
	schemes []string
	example string
	open    func(context.Context, db.Config) (db.Database, error)
}

func adapters() []adapter {
	return []adapter{
		{[]string{sqlite.Scheme}, "sqlite://PATH or sqlite::memory:", sqlite.Open},
		{[]string{postgres.Scheme, "postgresql"}, "postgres://USER@HOST:PORT/DB", postgres.Open},
		{[]string{mysql.Scheme, "mariadb"}, "mysql://USER@HOST:PORT[,HOST:PORT...]/DB", mysql.Open},
		{[]string{etcd.Scheme}, "etcd://HOST:PORT[,HOST:PORT...]", etcd.Open},
		{[]string{sim.Scheme}, "sim://si?fault=lost-update", sim.Open},
	}
}

// Open opens the database cfg.DSN names, at cfg.Level.
func Open(ctx context.Context, cfg db.Config) (db.Database, error) {
	scheme, _, ok := strings.Cut(cfg.DSN, ":")
	if ok {
		for _, a := range adapters() {
			for _, s := range a.schemes {
				if strings.EqualFold(scheme, s) {
					return a.open(ctx, cfg)
				}
			}
		}
	}
	return nil, fmt.Errorf("unknown database %q: want one of %s", cfg.DSN, Examples())
}

// Examples lists a DSN of each kind, for help texts.
func Examples() string {
	var ex []string
	for _, a := range adapters() {
		ex = append(ex, a.example)
	}
	return strings.Join(ex, ", ")
}
