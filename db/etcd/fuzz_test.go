package etcd

import "testing"

// FuzzParseDSN: any DSN is parsed or refused with an error, never a panic.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{"etcd://127.0.0.1:2379", "etcd://a:1,b:2?dial-timeout=1s", "etcd://", "etcd://[::1]:2379"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		parseDSN(dsn)
	})
}
