package dbtest

import (
	"net"
	"sync"
	"testing"
)

// Unreachable returns two loopback addresses for tests of a database that
// is down: closed, where nothing listens (connections are refused), and
// silent, where a server accepts connections and never answers. The silent
// server and its connections close when the test ends.
func Unreachable(t *testing.T) (closed, silent string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed = l.Addr().String()
	l.Close()

	s, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := s.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		s.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return closed, s.Addr().String()
}
