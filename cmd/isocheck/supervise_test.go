package main

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
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
		os.Exit(m.Run())
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

func TestChildOutcome(t *testing.T) {
	if code, msg := childOutcome([]byte{1}, errors.New("exit status 1"), ""); code != 1 || msg != "" {
		t.Errorf("a reported status: %d %q", code, msg)
	}
	if code, _ := childOutcome(nil, errors.New("fork failed"), ""); code != exitCrashed {
		t.Errorf("a child that did not start: %d", code)
	}
}
