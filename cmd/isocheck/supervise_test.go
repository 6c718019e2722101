package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testChildEnv makes the test binary act as a supervised child that ends
// the way the variable says (see TestMain).
const testChildEnv = "ISOCHECK_TEST_CHILD"

// testArgsEnv holds the arguments of the "command" child, one a line.
const testArgsEnv = "ISOCHECK_TEST_ARGS"

func TestMain(m *testing.M) {
	switch os.Getenv(testChildEnv) {
	case "":
		os.Exit(runTests(m))
	case "main":
		// isocheck itself, supervisor and child: the test binary stands
		// in for a build of the command.
		main()
	case "command":
		// The whole command, unsupervised, with its arguments from the
		// environment: for tests that signal it.
		os.Exit(run(strings.Split(os.Getenv(testArgsEnv), "\n"), os.Stdout, os.Stderr))
	case "violated":
		serveChild(func() int { return exitViolated })
	case "bad-input":
		serveChild(func() int { return exitBadInput })
	case "panic":
		serveChild(func() int {
			done := make(chan int)
			go func() { panic("a bug") }()
			return <-done
		})
	case "out-of-memory":
		serveChild(func() int {
			var keep [][]byte
			for {
				//lint:ignore SA4010 the child grows until the memory limit kills it
				keep = append(keep, make([]byte, 1<<40))
			}
		})
	case "killed":
		serveChild(func() int {
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
			time.Sleep(time.Minute)
			return 0
		})
	}
}

// runTests runs the tests in a temporary directory of their own, which it
// removes at the end: `isocheck run` without -o keeps the history it
// records in the temporary directory, on purpose, for the user to read,
// and a test that forgets -o would leave one behind in /tmp at every run.
// One that does fails the tests here.
func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "isocheck-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// The tests' child processes inherit it.
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	if left, _ := filepath.Glob(filepath.Join(tmp, "isocheck-run-*")); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left %d histories of runs without -o in the temporary directory (%s, ...): give each run -o under t.TempDir()\n", len(left), filepath.Base(left[0]))
		code = 1
	}
	return code
}

// TestSupervisedExitStatus runs the test binary as a supervised child and
// checks that a crash is never taken for bad input (exit 2), while the
// child's own statuses pass through.
func TestSupervisedExitStatus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor's pipes are tested on Linux")
	}
	cases := []struct {
		child   string
		status  int
		message string
	}{
		{"violated", exitViolated, ""},
		{"bad-input", exitBadInput, ""},
		{"panic", exitCrashed, "internal error"},
		{"out-of-memory", exitNoVerdict, "resource limit"},
		{"killed", exitNoVerdict, "resource limit"},
	}
	for _, c := range cases {
		t.Run(c.child, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), testChildEnv+"="+c.child)
			var stderr strings.Builder
			got := supervise(cmd, &stderr)
			if got != c.status {
				t.Errorf("exit status %d, want %d; stderr: %s", got, c.status, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.message) {
				t.Errorf("stderr %q lacks %q", stderr.String(), c.message)
			}
		})
	}
}

// TestCrashPage: a check the system kills (SIGKILL, which the child
// cannot catch) still leaves the page --html asked for, saying on its
// first screen that there is no verdict and why.
func TestCrashPage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor's pipes are tested on Linux")
	}
	page := filepath.Join(t.TempDir(), "report.html")
	cmd := exec.Command(os.Args[0], "explain", "--level", "si", "--html", page, "history.jsonl")
	cmd.Env = append(os.Environ(), testChildEnv+"=killed")
	var stderr strings.Builder
	if got := supervise(cmd, &stderr); got != exitNoVerdict {
		t.Fatalf("exit status %d, want %d; stderr: %s", got, exitNoVerdict, stderr.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("no page: %v; stderr: %s", err, stderr.String())
	}
	html := string(b)
	banner := `<p class="verdict unknown" role="status">no verdict: resource limit: the checker was killed (SIGKILL)`
	if !strings.Contains(html, banner) || !strings.Contains(html, "isocheck explain --level si --html") {
		t.Errorf("the page does not say first that the check was killed, and how it was run:\n%s", html)
	}
}

func TestFlagValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--html", "a.html", "h"}, "a.html"},
		{[]string{"check", "-html=b.html", "h"}, "b.html"},
		{[]string{"check", "--html", "a", "--html", "c"}, "c"},
		{[]string{"check", "--", "--html", "a"}, ""},
		{[]string{"check", "--html"}, ""},
		{[]string{"check", "--htmlx", "a"}, ""},
	} {
		if got := flagValue(c.args, "html"); got != c.want {
			t.Errorf("flagValue(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestChildOutcome(t *testing.T) {
	if code, msg := childOutcome([]byte{1}, errors.New("exit status 1"), ""); code != 1 || msg != "" {
		t.Errorf("a reported status: %d %q", code, msg)
	}
	if code, _ := childOutcome(nil, errors.New("fork failed"), ""); code != exitCrashed {
		t.Errorf("a child that did not start: %d", code)
	}
}

// TestChildDiesWithSupervisor kills isocheck's supervising process with
// SIGKILL, which it cannot catch, in the middle of a check and of a run,
// and requires its child to be gone within a second: an orphan would go
// on using the machine, or driving the database and appending to the
// history, with nobody to read the outcome.
func TestChildDiesWithSupervisor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test finds processes in /proc")
	}
	dir := t.TempDir()
	// A FIFO nobody writes: the check blocks opening it, for ever.
	fifo := filepath.Join(dir, "history.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	recorded := filepath.Join(dir, "run.jsonl")
	cases := []struct {
		name string
		args []string
		// busy reports that the child is at work.
		busy func() bool
	}{
		{"check", []string{"check", fifo}, func() bool { return true }},
		// Some 40 s of SQLite transactions on this machine.
		{"run", []string{"run", "--db", "sqlite://" + filepath.Join(dir, "run.db"), "--workload", "mini", "--sessions", "2", "--txns", "100000", "-o", recorded},
			func() bool { fi, err := os.Stat(recorded); return err == nil && fi.Size() > 0 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Env = append(os.Environ(), testChildEnv+"=main")
			// A file, not a pipe: an orphan would hold a pipe open and
			// cmd.Wait would wait for it.
			stderr, err := os.Create(filepath.Join(dir, c.name+".stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			supervisor := cmd.Process.Pid
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			child := 0
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
				if child == 0 {
					child = childOf(supervisor)
				}
				if child != 0 && c.busy() {
					break
				}
				if time.Now().After(deadline) {
					msg, _ := os.ReadFile(stderr.Name())
					t.Fatalf("no busy child of %d after a minute; stderr: %s", supervisor, msg)
				}
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			for deadline := time.Now().Add(30 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					syscall.Kill(child, syscall.SIGKILL)
					t.Fatalf("child %d of the killed supervisor %d still runs after 30 s", child, supervisor)
				}
			}
		})
	}
}

// childOf returns the process ID of the isocheck child of the process
// pid once it runs isocheck's code (its environment marks it), or 0.
func childOf(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if ppid, _ := parseStat(b); ppid != pid {
			continue
		}
		dir := filepath.Dir(path)
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !bytes.Contains(env, []byte(childEnv+"=")) {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(dir))
		return child
	}
	return 0
}

// alive reports whether process pid runs: it exists and is not a zombie
// waiting to be reaped.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, state := parseStat(b)
	return state != "Z" && state != "X"
}

// parseStat reads the parent process ID and the state from the contents
// of /proc/PID/stat: "PID (COMM) STATE PPID ...", where COMM may hold
// spaces and parentheses.
func parseStat(b []byte) (ppid int, state string) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, ""
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0]
}
