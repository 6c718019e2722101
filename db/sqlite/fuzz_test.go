package sqlite

import "testing"

// FuzzParseDSN: any DSN is parsed or refused with an error, never a panic.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"sqlite:///tmp/x.db?busy_timeout=1s&begin=immediate", "sqlite::memory:", "sqlite://rel/path"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		parseDSN(dsn)
	})
}

// FuzzParseList: a stored list is parsed or refused with an error, never
// a panic.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "1", "1,2,3", "-9223372036854775808", "1,,2", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parseList(s)
	})
}
