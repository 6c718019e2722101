package format_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/format/internal/formattest"
	"github.com/isocheck/isocheck/format/internal/scan"
)

// readWithin runs ReadFileContext and fails the test if it takes longer
// than limit, a bound that turns a read that never ends into a failure
// (far above the time it takes on a loaded machine); it returns the
// error.
func readWithin(t *testing.T, limit time.Duration, path string, f format.Format) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _, err := format.ReadFileContext(context.Background(), path, f)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("ReadFileContext(%s, %s) still running after %v", path, f, limit)
	}
	return nil
}

// TestReadDevZero reads /dev/zero, an endless input of zero bytes, in every
// format: each must fail soon, in bounded memory, naming the file and the
// byte offset.
func TestReadDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	tests := []struct {
		f   format.Format
		msg string
	}{
		{format.JSONL, "line longer than 67108864 bytes (it starts at byte offset 0)"},
		{format.Text, "line longer than 67108864 bytes (it starts at byte offset 0)"},
		{format.DBCop, "byte offset 72: unexpected data after the end of the history"},
		{format.Auto, "byte offset 72: unexpected data after the end of the history"},
		{format.Cobra, "byte offset 0: unknown record type '\\x00'"},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := readWithin(t, time.Minute, "/dev/zero", tt.f)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("no error")
			}
			formattest.CheckError(t, err)
			if !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q, want one naming /dev/zero and saying %q", err, tt.msg)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestReadLongLine checks the limit on one line of a text format.
func TestReadLongLine(t *testing.T) {
	for _, f := range []format.Format{format.JSONL, format.Text, format.Auto} {
		r := io.MultiReader(strings.NewReader("\n\n{"), io.LimitReader(&formattest.Endless{Line: []byte(strings.Repeat("x", 4096))}, scan.MaxLineLen), strings.NewReader("\n"))
		_, err := format.Read(r, "long", f)
		e := formattest.CheckError(t, err)
		if e.Line != 3 || !strings.Contains(e.Msg, "line longer than 67108864 bytes (it starts at byte offset 2)") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestCobraOddFiles checks Cobra directories with logs that are not
// regular files: each is refused, by name, without reading it.
func TestCobraOddFiles(t *testing.T) {
	good := new(formattest.CobraLog).S(1).W(5, 1, 1).C(1).B
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // makes T2.log
		msg   string
	}{
		{"symlink to /dev/zero", func(t *testing.T, dir string) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "T2.log")); err != nil {
				t.Skip(err)
			}
		}, "not a regular file (a character device)"},
		{"FIFO", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "T2.log"), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file (a FIFO)"},
		{"directory", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "T2.log"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a directory)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := formattest.WriteDir(t, map[string][]byte{"T1.log": good, "notes.txt": []byte("x")})
			tt.setup(t, dir)
			for _, f := range []format.Format{format.Auto, format.Cobra} {
				err := readWithin(t, time.Minute, dir, f)
				if err == nil {
					t.Fatalf("%s: no error", f)
				}
				e := formattest.CheckError(t, err)
				if want := filepath.Join(dir, "T2.log"); e.File != want || !strings.Contains(e.Msg, tt.msg) {
					t.Errorf("%s: got %v, want %s: ...%s...", f, err, want, tt.msg)
				}
			}
		})
	}

	// A symbolic link to a regular file is a log like any other.
	dir := formattest.WriteDir(t, map[string][]byte{"T1.log": good, "data": new(formattest.CobraLog).S(2).C(2).B})
	if err := os.Symlink(filepath.Join(dir, "data"), filepath.Join(dir, "T2.log")); err != nil {
		t.Skip(err)
	}
	h, err := format.ReadFile(dir, format.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Txns) != 2 || len(h.Sessions) != 2 {
		t.Errorf("%d transactions in %d sessions, want 2 in 2", len(h.Txns), len(h.Sessions))
	}
}

// TestDBCopStreamLimits checks the bounds on counts and lengths of a dbcop
// input whose size is unknown.
func TestDBCopStreamLimits(t *testing.T) {
	zeros := &formattest.Endless{Line: make([]byte, 4096)}
	tests := []struct {
		name   string
		prefix []byte
		off    int64
		msg    string
	}{
		{"huge string", new(formattest.Bin).U64(0, 1, 1, 1, 1, 1<<40).B, 40, "the length of the header's info is 1099511627776, more than the limit of 67108864"},
		{"many sessions", new(formattest.Bin).Header(1, 1, 1, 1).U64(1 << 40).B, 72, "the number of sessions is 1099511627776, more than the limit of 1048576"},
		{"many transactions", new(formattest.Bin).Header(1, 1, 1, 1).U64(1, 1<<40).B, 80, "the number of transactions of session 0 is 1099511627776, more than the limit of 2147483647"},
		{"many events", new(formattest.Bin).Header(1, 1, 1, 1).U64(1, 1, 1<<40).B, 88, "the number of events of transaction 0 of session 0 is 1099511627776, more than the limit of 3728270"},
	}
	for _, tt := range tests {
		r := io.MultiReader(strings.NewReader(string(tt.prefix)), zeros)
		_, err := format.Read(r, "s.bincode", format.DBCop)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		e := formattest.CheckError(t, err)
		if e.Offset != tt.off || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%s:\ngot  %v\nwant s.bincode: byte offset %d: ...%s...", tt.name, err, tt.off, tt.msg)
		}
		if errors.Is(err, io.EOF) {
			t.Errorf("%s: wraps io.EOF", tt.name)
		}
	}
}
