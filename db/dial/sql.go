package dial

import (
	"context"
	"fmt"
	"strings"

	"github.com/isocheck/isocheck/db"
	"github.com/isocheck/isocheck/db/postgres"
	"github.com/isocheck/isocheck/db/sqlite"
)

// OpenSQL opens the relational database dsn names for SQL client programs
// (package sqlrun): sqlite://PATH, sqlite::memory: or postgres://....
func OpenSQL(ctx context.Context, dsn string) (db.SQLDatabase, error) {
	scheme, _, _ := strings.Cut(dsn, ":")
	switch strings.ToLower(scheme) {
	case sqlite.Scheme:
		return sqlite.OpenSQL(ctx, dsn)
	case postgres.Scheme, "postgresql":
		return postgres.OpenSQL(ctx, dsn)
	}
	return nil, fmt.Errorf("unknown SQL database %q: want sqlite://PATH, sqlite::memory: or postgres://USER@HOST:PORT/DB", dsn)
}
