package mysql

import "testing"

// FuzzParseDSN: any DSN is parsed or refused with an error, never a panic.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"mysql://u:p@127.0.0.1:3307,127.0.0.1:3308/db?timeout=1s", "mariadb://u@[::1]/db", "mysql://@/", "mysql://u%40x:p%3A@h:1/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		parseDSN(dsn)
	})
}
