package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/isocheck/isocheck/format"
	"github.com/isocheck/isocheck/histgen"
	"github.com/isocheck/isocheck/workload"
)

// mkfifo makes a FIFO at path, or skips the test where there are none.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

// drain reads the FIFO at path, as a reader that goes away after n bytes
// does (n < 0: to the end), and sends what it read on the channel.
func drain(path string, n int64) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- nil
			return
		}
		var r io.Reader = f
		if n >= 0 {
			r = io.LimitReader(f, n)
		}
		b, _ := io.ReadAll(r)
		f.Close()
		got <- b
	}()
	return got
}

// names lists the files in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range entries {
		s = append(s, e.Name())
	}
	return s
}

// TestWriteFile: a write that fails leaves what was at the path as it
// was, removes only the files isocheck created, and leaves no temporary
// file; one that succeeds replaces a file, keeping its mode.
func TestWriteFile(t *testing.T) {
	boom := errors.New("boom")
	fail := func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	}
	succeed := func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}
	// The mode a new file gets: 0666 less the umask.
	probe := filepath.Join(t.TempDir(), "probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(probe)
	newMode := st.Mode().Perm()

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, path string) // nil: nothing at the path
		write func(io.Writer) error
		// want is the content after, "" for no file; mode its mode.
		want  string
		mode  fs.FileMode
		fails bool
	}{
		{name: "new file, failed", write: fail, fails: true},
		{name: "new file", write: succeed, want: "new", mode: newMode},
		{name: "existing file, failed", setup: original, write: fail, fails: true, want: "original", mode: 0o640},
		{name: "existing file", setup: original, write: succeed, want: "new", mode: 0o640},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			if tc.setup != nil {
				tc.setup(t, path)
			}
			err := writeFile(path, nil, tc.write)
			if tc.fails != errors.Is(err, boom) {
				t.Errorf("error %v, want the write's: %v", err, tc.fails)
			}
			b, rerr := os.ReadFile(path)
			switch {
			case tc.want == "" && rerr == nil:
				t.Errorf("a failed write left a file: %q", b)
			case tc.want != "" && string(b) != tc.want:
				t.Errorf("the file holds %q, want %q (%v)", b, tc.want, rerr)
			}
			if st, err := os.Stat(path); err == nil && st.Mode().Perm() != tc.mode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tc.mode)
			}
			want := []string{"out"}
			if tc.want == "" {
				want = nil
			}
			if got := names(t, dir); !slices.Equal(got, want) {
				t.Errorf("the folder holds %q, want %q", got, want)
			}
		})
	}
}

func original(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("original"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Whatever the umask.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFileThroughSymlink: a symbolic link stays one; the file it
// names is replaced.
func TestWriteFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	original(t, target)
	if err := os.Symlink("target", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := writeFile(link, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is no more: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the target holds %q, want %q", b, "new")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"link", "target"}) {
		t.Errorf("the folder holds %q", got)
	}
}

// TestWriteFileKeepsAFIFO: a write to a file isocheck did not create,
// here a FIFO, that fails leaves the file there.
func TestWriteFileKeepsAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	got := drain(fifo, -1)
	err := writeFile(fifo, nil, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return errors.New("boom")
	})
	if err == nil {
		t.Error("no error")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is no more: %v, %v", st, err)
	}
	if b := <-got; string(b) != "partial" {
		t.Errorf("the reader got %q", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"fifo"}) {
		t.Errorf("the folder holds %q", got)
	}
}

// TestConvertToAFIFOWhoseReaderGoes: convert to a FIFO whose reader goes
// away after a few bytes fails, and says why, instead of waiting for a
// reader for ever.
func TestConvertToAFIFOWhoseReaderGoes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "h.jsonl")
	h := histgen.Large(histgen.LargeConfig{Sessions: 10, TxnsPerSession: 200, OpsPerTxn: 10, Keys: 100, ReadProportion: 0.5, Dist: workload.Uniform, Seed: 1})
	if err := writeFile(in, nil, func(w io.Writer) error { return format.Write(w, h, format.JSONL) }); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "out")
	mkfifo(t, fifo)
	got := drain(fifo, 100)
	code, _, stderr := runCmdWithin(t, "convert", "--to", "jsonl", in, fifo)
	if code != exitBadInput || !strings.Contains(stderr, "broken pipe") {
		t.Errorf("exit %d, want 2 and the broken pipe\n%s", code, stderr)
	}
	if b := <-got; len(b) != 100 {
		t.Errorf("the reader got %d bytes, want 100", len(b))
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is no more: %v, %v", st, err)
	}
}

// TestRunOutputKeepsWhatFails: run -o FILE --force leaves FILE as it was
// when the run does not start, and writes a FIFO, which it keeps, and
// checks the history it wrote there.
func TestRunOutputKeepsWhatFails(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(out, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(runArgs("--db", "nosuch://x", "-o", out, "--force")...)
	if code != exitBadInput {
		t.Errorf("--db nosuch://x: exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "precious\n" {
		t.Errorf("a run that did not start changed the file: %q", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"h.jsonl"}) {
		t.Errorf("the folder holds %q", got)
	}

	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	got := drain(fifo, -1)
	code, stdout, stderr = runCmdWithin(t, runArgs("--db", "sim://si", "-o", fifo, "--force", "--check", "si")...)
	if code != exitSatisfied || !strings.Contains(stdout, "SI: satisfied") {
		t.Errorf("-o FIFO --check si: exit %d, want 0 and the verdict\n%s\n%s", code, stdout, stderr)
	}
	h, err := format.Read(strings.NewReader(string(<-got)), "fifo", format.JSONL)
	if err != nil || len(h.Txns) != 360 {
		t.Errorf("the FIFO's reader did not get the history: %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is no more: %v, %v", st, err)
	}
}

// runCmdWithin is runCmd, for a command that might wait for ever on a
// FIFO: the test fails instead after a generous time. It asks no speed.
func runCmdWithin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCmd(args...)
		done <- result{code, stdout, stderr}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-ctx.Done():
		t.Fatalf("%v still runs: it waits on a FIFO", args)
		return
	}
}
