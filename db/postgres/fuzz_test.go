package postgres

import "testing"

// FuzzParseDSN: any DSN is parsed or refused with an error, never a panic.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"postgres://postgres@127.0.0.1:55432/isocheck?sslmode=disable", "postgresql://u:p@h/d", "postgres://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		parseDSN(dsn)
	})
}
