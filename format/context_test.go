package format_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
)

// TestReadContextStops reads endless inputs of every format: each must stop
// soon after the deadline.
func TestReadContextStops(t *testing.T) {
	dbcopPrefix := new(formattest.Bin).Header(1, 1, 1, 1).U64(1, 1<<30).B
	tests := []struct {
		f    format.Format
		line string
	}{
		{format.JSONL, `{"session":1,"ops":[["w","x",1],["r","y",null]]}` + "\n"},
		{format.Text, "w(1,1,1,1)\n"},
		{format.Auto, "w(1,1,1,1)\n"},
		{format.Auto, "\n"},
		{format.JSONL, "\n"},
		{format.DBCop, string(new(formattest.Bin).U64(1).Event(true, 1, 1, true).U8(1).B)},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			var r io.Reader = &formattest.Endless{Line: []byte(tt.line)}
			if tt.f == format.DBCop {
				r = io.MultiReader(bytes.NewReader(dbcopPrefix), r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, _, err := format.ReadContext(ctx, r, "endless", tt.f)
				done <- err
			}()
			var err error
			// The reader never ends: only the deadline ends the read,
			// typically 100-110ms after the start. The bound only turns
			// a read that misses the deadline into a failure, however
			// loaded the machine.
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("still reading %v after the start", time.Since(start))
			}
			formattest.CheckStopped(t, err)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "endless") {
				t.Errorf("error %v", err)
			}
		})
	}
}

// cancelAtEOF cancels a context when its reader reaches the end.
type cancelAtEOF struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c *cancelAtEOF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.cancel()
	}
	return n, err
}

// TestReadContextStopsAfterReading cancels the context as the input ends:
// the passes after reading must notice.
func TestReadContextStopsAfterReading(t *testing.T) {
	var text, jsonl bytes.Buffer
	for i := range 10000 {
		text.WriteString("w(1," + itoa(i) + ",1," + itoa(i) + ")\n")
		jsonl.WriteString(`{"session":1,"ops":[["w",1,` + itoa(i) + "]]}\n")
	}
	inputs := map[format.Format][]byte{format.Text: text.Bytes(), format.JSONL: jsonl.Bytes(), format.DBCop: formattest.SmallDBCop()}
	for f, in := range inputs {
		ctx, cancel := context.WithCancel(context.Background())
		_, _, err := format.ReadContext(ctx, &cancelAtEOF{bytes.NewReader(in), cancel}, "in", f)
		t.Run(string(f), func(t *testing.T) { formattest.CheckStopped(t, err) })
		cancel()
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func TestReadFileContextCancelled(t *testing.T) {
	dir := formattest.WriteDir(t, map[string][]byte{"h.jsonl": []byte(`{"session":1,"ops":[]}`), "T1.log": nil})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		path string
		f    format.Format
	}{
		{filepath.Join(dir, "h.jsonl"), format.Auto},
		{filepath.Join(dir, "h.jsonl"), format.JSONL},
		{dir, format.Auto},
		{dir, format.Cobra},
	} {
		_, _, err := format.ReadFileContext(ctx, tt.path, tt.f)
		formattest.CheckStopped(t, err)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s, %s: %v", tt.path, tt.f, err)
		}
	}
	_, _, err := format.ReadContext(ctx, strings.NewReader(""), "x", format.Auto)
	formattest.CheckStopped(t, err)
}

// TestReadFileContextPipe reads a FIFO whose writer writes nothing: the read
// blocks until the deadline, which must end it.
func TestReadFileContextPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "h.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer, so that opening does not block
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString(`{"session":1,"ops":[]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []format.Format{format.JSONL, format.Auto} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		_, _, err := format.ReadFileContext(ctx, fifo, f)
		cancel()
		// Only the deadline ends the read; the bound is for a hang.
		if d := time.Since(start); d > time.Minute {
			t.Errorf("%s: returned after %v", f, d)
		}
		formattest.CheckStopped(t, err)
	}
}

// TestReadFileContextBig measures how soon reading a large file stops after
// the deadline. It needs a large JSONL file in $ISOCHECK_BIG_JSONL.
func TestReadFileContextBig(t *testing.T) {
	path := os.Getenv("ISOCHECK_BIG_JSONL")
	if path == "" {
		t.Skip("set ISOCHECK_BIG_JSONL to a large JSONL history")
	}
	for _, after := range []time.Duration{100 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		start := time.Now()
		_, _, err := format.ReadFileContext(ctx, path, format.Auto)
		d := time.Since(start)
		cancel()
		formattest.CheckStopped(t, err)
		t.Logf("deadline %v: returned after %v (%v late): %v", after, d, d-after, err)
		if d-after > 100*time.Millisecond {
			t.Errorf("deadline %v: returned %v late", after, d-after)
		}
	}
}
