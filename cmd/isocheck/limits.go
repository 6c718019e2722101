package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/isocheck/isocheck/internal/progress"
)

// limits are the flags that bound a run: its time and memory, and whether
// it shows its progress on stderr.
type limits struct {
	timeout   timeoutValue
	maxMemory byteSize
	progress  bool
	// cpuProfile and memProfile are files for pprof profiles of the run.
	cpuProfile, memProfile string
}

// addLimitFlags defines --timeout, --max-memory and --progress on fs.
func addLimitFlags(fs *flag.FlagSet) *limits {
	l := &limits{maxMemory: byteSize(defaultMaxMemory())}
	fs.Var(&l.timeout, "timeout", "give up after this long, parsing included (exit 3): 90s, 10m, 2h; a bare number is seconds; 0 (the default) means no limit")
	fs.Var(&l.maxMemory, "max-memory", "give up (exit 3, resource limit) once the process uses more memory than this: 4GiB, 500MB, 0 for no limit (default: GOMEMLIMIT if set, else 80% of the machine's memory)")
	fs.BoolVar(&l.progress, "progress", false, "show the stage and its progress on stderr even when stderr is not a terminal (runs over 2 s only)")
	fs.StringVar(&l.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to FILE (read it with go tool pprof)")
	fs.StringVar(&l.memProfile, "memprofile", "", "write a heap profile, taken as the run ends, to FILE")
	return l
}

// timeoutValue is a --timeout: a Go duration, or a number of seconds; 0
// means none.
type timeoutValue time.Duration

func (t *timeoutValue) String() string {
	if *t == 0 {
		return "0"
	}
	return time.Duration(*t).String()
}

func (t *timeoutValue) Set(s string) error {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || secs >= math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("want a duration such as 90s or 10m, or 0 for none; not %q", s)
		}
		*t = timeoutValue(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration such as 90s, 10m or 1h30m (a bare number is seconds), or 0 for none; not %q", s)
	}
	*t = timeoutValue(d)
	return nil
}

// byteSize is a --max-memory: a number of bytes with an optional unit (KB,
// MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	}
	num, mult := strings.TrimSpace(s), 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(num), strings.ToUpper(u.suffix)) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsNaN(v) || v*mult >= math.MaxInt64 {
		return fmt.Errorf("want a size such as 4GiB or 500MB, or 0 for no limit; not %q", s)
	}
	*b = byteSize(v * mult)
	return nil
}

func formatBytes(n int64) string {
	switch {
	case n == 0:
		return "0"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}

// defaultMaxMemory is GOMEMLIMIT when the environment sets it, or 80% of
// the machine's memory, so that a run on a history it cannot check stops
// with a message before the machine starts to swap or kill processes.
func defaultMaxMemory() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
			return l
		}
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 0
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	return int64(total / 10 * 8)
}

// job is one bounded run: its context ends at the deadline, or with a
// cause wrapping progress.ErrResourceLimit once memory passes the limit;
// its Tracker says which stage it reached.
type job struct {
	ctx     context.Context
	tracker *progress.Tracker
	limits  *limits
	// stop ends the job's watchers and its progress bar; it may be
	// called more than once.
	stop func()
	// stopped is why the context had ended when stop was first called
	// (nil: it had not), as stop's own cancelling must not count.
	stopped    error
	stopCalled bool
}

// start begins a bounded run, showing progress on stderr when it is a
// terminal (or --progress asked for it). Call stop when the work is done,
// before printing the results.
func (l *limits) start(stderr io.Writer) *job {
	tr := progress.NewTracker()
	ctx := progress.WithTracker(context.Background(), tr)
	var cancels []func()
	if l.timeout > 0 {
		c, cancel := context.WithTimeout(ctx, time.Duration(l.timeout))
		ctx = c
		cancels = append(cancels, cancel)
	}
	if l.maxMemory > 0 {
		c, cancel := context.WithCancelCause(ctx)
		ctx = c
		stopWatch := watchMemory(int64(l.maxMemory), cancel)
		cancels = append(cancels, stopWatch, func() { cancel(nil) })
	}
	if l.progress || isTerminal(stderr) {
		cancels = append(cancels, showProgress(tr, stderr, 2*time.Second))
	}
	if stopProfiles := l.startProfiles(stderr); stopProfiles != nil {
		cancels = append([]func(){stopProfiles}, cancels...)
	}
	var once sync.Once
	j := &job{ctx: ctx, tracker: tr, limits: l}
	j.stop = func() {
		once.Do(func() {
			j.stopped, j.stopCalled = context.Cause(ctx), true
			for i := len(cancels) - 1; i >= 0; i-- {
				cancels[i]()
			}
		})
	}
	return j
}

// startProfiles starts the CPU profile --cpuprofile asks for and returns
// a function that ends it and writes the heap profile of --memprofile (nil
// when neither is asked for). A profile that cannot be written is reported
// on stderr; the run goes on.
func (l *limits) startProfiles(stderr io.Writer) func() {
	if l.cpuProfile == "" && l.memProfile == "" {
		return nil
	}
	var cpu *os.File
	if l.cpuProfile != "" {
		f, err := os.Create(l.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "isocheck: --cpuprofile: %v\n", err)
		} else {
			cpu = f
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				fmt.Fprintf(stderr, "isocheck: --cpuprofile: %v\n", err)
			}
		}
		if l.memProfile != "" {
			f, err := os.Create(l.memProfile)
			if err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(stderr, "isocheck: --memprofile: %v\n", err)
			}
		}
	}
}

// memoryInUse reads the bytes the Go runtime holds from the system and
// has not returned: about the process's resident memory.
func memoryInUse(samples []metrics.Sample) int64 {
	metrics.Read(samples)
	total, released := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	if released > total {
		return 0
	}
	return int64(total - released)
}

// watchMemory makes the garbage collector work to keep the process under
// 90% of limit (a soft limit: it collects more often as memory nears it)
// and, when the process passes limit all the same, cancels the run with a
// cause wrapping progress.ErrResourceLimit. It returns a function that
// stops it.
func watchMemory(limit int64, cancel context.CancelCauseFunc) (stop func()) {
	old := debug.SetMemoryLimit(limit / 10 * 9)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if used := memoryInUse(samples); used > limit {
					cancel(fmt.Errorf("%w: memory use %s went past --max-memory %s", progress.ErrResourceLimit, formatBytes(used), formatBytes(limit)))
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		debug.SetMemoryLimit(old)
	}
}

// stopReason says why a stopped run stopped, where, and what to do about
// it: "timed out after 2s in stage prune (12,345 of 45,000 constraints);
// give it longer with --timeout 10m, or --timeout 0 for no limit".
func (r *job) stopReason(err error) string {
	snap := r.tracker.Snapshot()
	where := ""
	if snap.Stage != "" {
		where = " in stage " + snap.Stage
		switch {
		case snap.Total > 0:
			where += fmt.Sprintf(" (%s of %s %s)", count(snap.Done), count(snap.Total), snap.Unit)
		case snap.Done > 0:
			where += fmt.Sprintf(" (%s %s)", count(snap.Done), snap.Unit)
		}
	}
	cause := r.cause(err)
	switch {
	case errors.Is(cause, progress.ErrResourceLimit):
		return fmt.Sprintf("%v, after %v%s; %s", cause, snap.Elapsed.Round(time.Millisecond), where, r.hint(err))
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %v%s; %s", time.Duration(r.limits.timeout), where, r.hint(err))
	}
	return fmt.Sprintf("stopped (%v) after %v%s", cause, snap.Elapsed.Round(time.Millisecond), where)
}

// cause is why the job stopped (its context's cause), or err if it ran
// on.
func (r *job) cause(err error) error {
	c := r.stopped
	if !r.stopCalled {
		c = context.Cause(r.ctx)
	}
	if c != nil {
		return c
	}
	return err
}

// noVerdictReason says why a check gave no verdict: the stop of the job
// with where it happened, or the checker's own reason (a problem too large
// to encode, say) when the job ran on.
func (r *job) noVerdictReason(reason string) string {
	if r.cause(nil) == nil {
		return reason
	}
	return r.stopReason(errors.New(reason))
}

// hint says how to let a stopped job go further.
func (r *job) hint(err error) string {
	cause := r.cause(err)
	switch {
	case errors.Is(cause, progress.ErrResourceLimit):
		return "allow more with --max-memory, or --max-memory 0 for no limit"
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Sprintf("give it longer with --timeout %s, or --timeout 0 for no limit", shortDuration(longer(time.Duration(r.limits.timeout))))
	}
	return ""
}

// longer suggests a timeout: ten times d, rounded to something readable,
// and at least a minute.
func longer(d time.Duration) time.Duration {
	d *= 10
	switch {
	case d < time.Minute:
		return time.Minute
	case d >= time.Hour:
		return d.Round(time.Hour)
	case d >= time.Minute:
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// shortDuration writes d without its zero minutes and seconds: 1m, 2h.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// count writes n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && c != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
