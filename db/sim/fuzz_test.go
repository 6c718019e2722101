package sim

import "testing"

// FuzzParseDSN: any DSN is parsed or refused with an error, never a panic.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"sim://si?fault=lost-update&p=0.5&seed=3", "sim://ser", "sim://rc?fault=dirty-read", "sim://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		parseDSN(dsn)
	})
}
