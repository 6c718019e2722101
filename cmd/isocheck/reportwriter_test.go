package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// fullWriter fails every write, as a full disk does.
type fullWriter struct{}

func (fullWriter) Write(p []byte) (int, error) { return 0, syscall.ENOSPC }

// TestReportLost: every command that writes a report exits 2 when the
// report cannot be written, and gives on stderr the error and the verdict
// the report would have carried.
func TestReportLost(t *testing.T) {
	recorded := filepath.Join(t.TempDir(), "run.jsonl")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"check violated", []string{"check", "../../examples/lost-update.jsonl"},
			`; verdict: violated (the report began "SI: VIOLATED: LostUpdate (G-single)")`},
		{"check satisfied", []string{"check", "../../examples/serializable.jsonl"},
			`; verdict: satisfied (the report began "SI: satisfied`},
		{"check json", []string{"check", "--json", "../../examples/lost-update.jsonl"}, "; verdict: violated\n"},
		{"check stopped", []string{"check", "--timeout", "1ns", "../../examples/lost-update.jsonl"}, "; no verdict"},
		{"check all levels", []string{"check", "--level", "all", "../../examples/write-skew.jsonl"}, "; verdict: violated"},
		{"explain", []string{"explain", "--level", "ser", "../../examples/write-skew.jsonl"}, "; verdict: violated"},
		{"stats", []string{"stats", "../../examples/lost-update.jsonl"}, `; the command had succeeded otherwise (the report began "format:`},
		{"convert to stdout", []string{"convert", "--to", "jsonl", "../../examples/lost-update.jsonl", "-"}, "; the command had succeeded otherwise"},
		{"explore", []string{"explore", "--app", "courseware", "--sessions", "2", "--txns", "2", "--level", "rc"}, "; verdict: violated"},
		{"lwt", []string{"lwt", "../../examples/cas-stale-read.edn"}, `; verdict: violated (the report began "linearizability:`},
		{"run's summary", []string{"run", "--db", "sim://si", "--workload", "mini", "--sessions", "2", "--txns", "10", "-o", recorded},
			`; the command had succeeded otherwise (the report began "running mini workload`},
		{"help", []string{"help"}, "; the command had succeeded otherwise"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			status := runReporting(c.args, fullWriter{}, &stderr)
			if status != exitBadInput {
				t.Errorf("exit status %d, want %d", status, exitBadInput)
			}
			msg := stderr.String()
			if want := "isocheck: writing the report: no space left on device" + c.want; !strings.Contains(msg, want) {
				t.Errorf("stderr lacks %q:\n%s", want, msg)
			}
			if n := strings.Count(msg, "no space left on device"); n != 1 {
				t.Errorf("the error is reported %d times, want once:\n%s", n, msg)
			}
		})
	}
}

// TestReportWritten: when the report is written, the status is the
// command's and stderr has no complaint.
func TestReportWritten(t *testing.T) {
	var stdout, stderr bytes.Buffer
	status := runReporting([]string{"check", "../../examples/lost-update.jsonl"}, &stdout, &stderr)
	if status != exitViolated || !strings.HasPrefix(stdout.String(), "SI: VIOLATED") || stderr.Len() != 0 {
		t.Errorf("exit status %d, stdout %q, stderr %q", status, stdout.String(), stderr.String())
	}
}

// TestReportWriterHead: the first line is kept whatever the writes'
// boundaries, and bounded; the first error is kept, and later writes are
// not attempted.
func TestReportWriterHead(t *testing.T) {
	long := strings.Repeat("x", maxHead+10)
	cases := []struct {
		writes []string
		head   string
	}{
		{[]string{"SER: VIOLATED\nmore\n"}, "SER: VIOLATED"},
		{[]string{"SER: ", "VIOL", "ATED\n", "next line\n"}, "SER: VIOLATED"},
		{[]string{"no newline"}, "no newline"},
		{[]string{"\n", "second\n"}, ""},
		{[]string{long, "\n"}, long[:maxHead]},
	}
	for _, c := range cases {
		r := &reportWriter{w: fullWriter{}}
		for _, w := range c.writes {
			if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
				t.Errorf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
			}
		}
		if string(r.head) != c.head {
			t.Errorf("%q: head %q, want %q", c.writes, r.head, c.head)
		}
		if !errors.Is(r.err, syscall.ENOSPC) {
			t.Errorf("%q: err %v", c.writes, r.err)
		}
	}
	var b bytes.Buffer
	r := &reportWriter{w: &b}
	r.Write([]byte("a\n"))
	r.err = syscall.EIO
	r.Write([]byte("b\n"))
	if b.String() != "a\n" || r.err != syscall.EIO {
		t.Errorf("after a failure: wrote %q, err %v", b.String(), r.err)
	}
}

// TestReportToDevFull runs isocheck, supervisor and child, with its
// standard output on /dev/full.
func TestReportToDevFull(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full is Linux's")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	cmd := exec.Command(os.Args[0], "check", "--level", "ser", "../../examples/write-skew.jsonl")
	cmd.Env = append(os.Environ(), testChildEnv+"=main")
	cmd.Stdout = full
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitBadInput {
		t.Errorf("exit: %v, want status %d", err, exitBadInput)
	}
	want := `isocheck: writing the report: write /dev/stdout: no space left on device; verdict: violated (the report began "SER: VIOLATED: WriteSkew`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}
