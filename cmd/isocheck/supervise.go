package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The Go runtime exits with status 2 when it crashes (a panic, or a fatal
// error such as running out of memory), the status isocheck gives bad
// input. So that a crash never looks like bad input, the command runs
// its work in a child process, supervised: the child reports its exit
// status on a pipe before it exits and its crash output on another; a
// child that exits without reporting crashed, and the supervisor exits 3
// for an out-of-memory crash or kill (a resource limit) and 4 for any
// other crash.
//
// The child must never outlive its supervisor: an orphaned `run` would
// go on driving the database and appending to the history, an orphaned
// `check` go on using the machine, with nobody to read the outcome. On
// Linux the kernel kills the child when the supervisor dies (see
// setDeathSignal); everywhere, the child also watches a third pipe, its
// lifeline, whose write end only the supervisor holds, and exits when it
// reads end of file there.
const (
	// childEnv marks the child process; its value is the supervisor's
	// process ID.
	childEnv = "ISOCHECK_CHILD"
	// statusFD and crashFD are the child's pipes to its supervisor;
	// lifelineFD is the read end of the pipe that breaks when the
	// supervisor dies.
	statusFD   = 3
	crashFD    = 4
	lifelineFD = 5
	// exitCrashed is the exit status of a crash that is not a resource
	// limit: a bug in isocheck.
	exitCrashed = 4
)

// serveChild runs work as the supervised child: the runtime's crash
// output goes to the supervisor too, and the status work returns is
// reported before the process exits with it.
func serveChild(work func() int) {
	// The pipes must not leak into the programs the work starts: a
	// database node a cluster script restarts in the background would hold
	// them open, and the supervisor would wait for it forever.
	syscall.CloseOnExec(statusFD)
	syscall.CloseOnExec(crashFD)
	syscall.CloseOnExec(lifelineFD)
	watchSupervisor(os.Stderr)
	status := os.NewFile(statusFD, "status")
	if crash := os.NewFile(crashFD, "crash"); crash != nil {
		debug.SetCrashOutput(crash, debug.CrashOptions{})
	}
	code := work()
	if status != nil {
		status.Write([]byte{byte(code)})
	}
	os.Exit(code)
}

// watchSupervisor makes the child exit once its supervisor is gone: when
// the lifeline breaks, or at once when the supervisor died before the
// child could watch it (the child has then been handed to another parent).
// Without a lifeline descriptor there is nothing to watch but the parent.
func watchSupervisor(stderr io.Writer) {
	gone := func() {
		fmt.Fprintf(stderr, "isocheck: the supervising process is gone; stopping\n")
		os.Exit(exitCrashed)
	}
	// Nonblocking, the read waits in the runtime's poller instead of
	// holding a thread.
	if err := syscall.SetNonblock(lifelineFD, true); err != nil {
		return
	}
	lifeline := os.NewFile(lifelineFD, "lifeline")
	go func() {
		var b [1]byte
		// The supervisor never writes: the read ends only when the last
		// write end closes, that is when the supervisor has exited.
		if _, err := lifeline.Read(b[:]); err == io.EOF {
			gone()
		}
	}()
	if pid, err := strconv.Atoi(os.Getenv(childEnv)); err == nil && os.Getppid() != pid {
		gone()
	}
}

// supervise runs cmd as a supervised child with the process's standard
// streams and returns the exit status to give. Signals that end a process
// (interrupt, terminate, hang up) are passed on to the child, which dies
// with the supervisor if the supervisor is killed.
func supervise(cmd *exec.Cmd, stderr io.Writer) int {
	statusR, statusW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitCrashed
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitCrashed
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: %v\n", err)
		return exitCrashed
	}
	// Holding lifeW open until the child has exited is the whole point:
	// closing it earlier would tell the child its supervisor is gone. Like
	// every descriptor of os.Pipe it is close-on-exec, so the child, which
	// gets lifeR through ExtraFiles, never holds it.
	defer lifeW.Close()
	cmd.ExtraFiles = []*os.File{statusW, crashW, lifeR}
	cmd.Env = append(cmd.Environ(), childEnv+"="+strconv.Itoa(os.Getpid()))
	setDeathSignal(cmd)
	// The kernel sends the death signal when the thread that started the
	// child exits, not the process: keep this goroutine on its thread,
	// and other goroutines off it, until the child is done.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	started := time.Now()
	err = cmd.Start()
	statusW.Close()
	crashW.Close()
	lifeR.Close()
	if err != nil {
		fmt.Fprintf(stderr, "isocheck: starting the checker: %v\n", err)
		return exitCrashed
	}
	go func() {
		for sig := range signals {
			cmd.Process.Signal(sig)
		}
	}()
	crash := make(chan []byte)
	go func() {
		// Keep the head of the crash output, where the runtime says
		// what happened; the rest is goroutine stacks.
		var b bytes.Buffer
		io.Copy(&b, io.LimitReader(crashR, 4096))
		io.Copy(io.Discard, crashR)
		crash <- b.Bytes()
	}()
	status, _ := io.ReadAll(statusR)
	crashText := <-crash
	err = cmd.Wait()
	code, msg := childOutcome(status, err, string(crashText))
	if msg != "" {
		fmt.Fprintf(stderr, "isocheck: %s\n", msg)
	}
	if len(status) != 1 && len(cmd.Args) > 1 {
		// The child never reported: it could not write the page it was
		// asked for either.
		cause := msg
		if cause == "" {
			cause = fmt.Sprintf("no verdict: stopped (exit status %d)", code)
		}
		crashPage(cmd.Args[1:], started, cause, stderr)
	}
	return code
}

// childOutcome turns what the child reported (its status byte, if any),
// how it ended, and its crash output into an exit status and a message.
func childOutcome(status []byte, waitErr error, crash string) (code int, msg string) {
	if len(status) == 1 {
		return int(status[0]), ""
	}
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		return exitCrashed, fmt.Sprintf("internal error: the checker did not run: %v", waitErr)
	}
	if exit != nil {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGKILL:
				return exitNoVerdict, "no verdict: resource limit: the checker was killed (SIGKILL), most likely by the system for want of memory; lower --max-memory so that isocheck stops itself first"
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE:
				return 128 + int(ws.Signal()), ""
			}
			return exitCrashed, fmt.Sprintf("internal error: the checker was killed by %v", ws.Signal())
		}
	}
	// The runtime writes "fatal error: runtime: out of memory" to stderr
	// only; the crash output has the stack, in which the call that failed
	// to map memory shows it.
	if strings.Contains(crash, "out of memory") || strings.Contains(crash, "runtime.sysMap") {
		return exitNoVerdict, "no verdict: resource limit: the checker ran out of memory; give it more with --max-memory, or check a smaller history"
	}
	how := "exited without a verdict"
	if exit != nil {
		how = fmt.Sprintf("crashed (%v)", exit)
	}
	return exitCrashed, "internal error: the checker " + how + "; this is a bug in isocheck, please report it with the output above"
}
