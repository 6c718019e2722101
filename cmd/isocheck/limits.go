package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/isocheck/isocheck/progress"
)

// limits are the flags that bound a run: its time and memory, and whether
// it shows its progress on stderr.
type limits struct {
	timeout   timeoutValue
	maxMemory byteSize
	progress  bool
	// cpuProfile and memProfile are files for pprof profiles of the run.
	cpuProfile, memProfile string
	// explainTime bounds the explanation of a violation (see
	// job.explaining); zero means automatic.
	explainTime explainTimeValue
}

// explainTimeValue is an --explain-time: "auto" (the zero value), a
// duration with its unit, or 0 for no limit but the run's own.
type explainTimeValue struct {
	set bool
	d   time.Duration
}

func (e *explainTimeValue) String() string {
	if !e.set {
		return "auto"
	}
	t := timeoutValue(e.d)
	return t.String()
}

func (e *explainTimeValue) Set(s string) error {
	if s == "auto" {
		*e = explainTimeValue{}
		return nil
	}
	var t timeoutValue
	if err := t.Set(s); err != nil {
		return err
	}
	*e = explainTimeValue{set: true, d: time.Duration(t)}
	return nil
}

// minExplainTime is the least time the explanation of a violation gets
// by default, however quick the check (see job.explaining).
const minExplainTime = 2 * time.Second

// addExplainTimeFlag defines --explain-time on fs.
func addExplainTimeFlag(fs *flag.FlagSet, l *limits) {
	fs.Var(&l.explainTime, "explain-time", fmt.Sprintf("the longest the explanation of a violation (the minimal counterexample, every anomaly's example) may take once the verdict is in: a `duration` with its unit; 0 for no limit but --timeout; auto (the default) is half the time taken so far, and at least %v. Past it the verdict stands, with the evidence at hand, and the report says what is missing", minExplainTime))
}

// addLimitFlags defines --timeout, --max-memory and --progress on fs.
func addLimitFlags(fs *flag.FlagSet) *limits {
	l := &limits{maxMemory: byteSize(defaultMaxMemory())}
	fs.Var(&l.timeout, "timeout", "give up after this long, parsing included (exit 3): a duration with its unit, such as 90s, 10m or 2h; 0 (the default) means no limit")
	fs.Var(&l.maxMemory, "max-memory", "give up (exit 3, resource limit) once the process's resident memory, as the operating system counts it, passes this: a size with its unit, such as 4GiB or 500MB (KB, MB, GB, TB count powers of 1000; KiB, MiB, GiB, TiB powers of 1024); 0 for no limit (default: GOMEMLIMIT if set, else 80% of the memory free as the run starts, or of what its cgroup leaves)")
	fs.BoolVar(&l.progress, "progress", false, "show the stage and its progress on stderr even when stderr is not a terminal (runs over 2 s only)")
	fs.StringVar(&l.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to FILE (read it with go tool pprof)")
	fs.StringVar(&l.memProfile, "memprofile", "", "write a heap profile, taken as the run ends, to FILE")
	return l
}

// timeoutValue is a --timeout: a Go duration, with its unit; 0 means none.
// A bare number is refused rather than guessed: seconds to one user,
// milliseconds to another.
type timeoutValue time.Duration

func (t *timeoutValue) String() string {
	if *t == 0 {
		return "0"
	}
	return time.Duration(*t).String()
}

func (t *timeoutValue) Set(s string) error {
	if s == "0" {
		*t = 0
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%q has no unit: want a duration with its unit, such as %ss, %sm or 1h30m, or 0 for no limit", s, s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration with its unit, such as 90s, 10m or 1h30m, or 0 for no limit; not %q", s)
	}
	*t = timeoutValue(d)
	return nil
}

// byteSize is a --max-memory: a number of bytes with its unit (B; KB, MB,
// GB, TB in powers of 1000; KiB, MiB, GiB, TiB, and K, M, G, T, in powers
// of 1024); 0 alone means no limit. A bare number is refused: read as
// bytes, --max-memory 1000 stopped every run at once.
type byteSize int64

// byteUnits are the units of a byteSize, the longest suffixes first.
var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
}

// String writes the size exactly, in the largest unit that divides it
// (500MB, 4GiB), so that a message echoes the limit as the user gave it;
// approximately when no unit does.
func (b *byteSize) String() string {
	n := int64(*b)
	if n == 0 {
		return "0"
	}
	exact := []struct {
		name string
		size int64
	}{
		{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
		{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
	}
	// The unit that divides it with the smallest quotient: 2TB, not
	// 1953125000KiB.
	var q int64
	unit := ""
	for _, u := range exact {
		if n%u.size == 0 && (unit == "" || n/u.size < q) {
			q, unit = n/u.size, u.name
		}
	}
	if unit == "" {
		return formatBytes(n)
	}
	return strconv.FormatInt(q, 10) + unit
}

func (b *byteSize) Set(s string) error {
	num := strings.TrimSpace(s)
	if num == "0" {
		*b = 0
		return nil
	}
	var mult int64
	for _, u := range byteUnits {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err == nil && mult == 0:
		return fmt.Errorf("%q has no unit: want a size with its unit, such as %sKB, %sMB or 4GiB, or 0 for no limit", s, num, num)
	case err != nil || v < 0 || math.IsNaN(v) || v*float64(mult) >= math.MaxInt64:
		return fmt.Errorf("want a size with its unit, such as 4GiB or 500MB, or 0 for no limit; not %q", s)
	}
	*b = byteSize(v * float64(mult))
	return nil
}

// formatBytes writes a measured size of memory, to a tenth of its unit.
func formatBytes(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f%s", float64(n)/float64(u.size), u.name)
		}
	}
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%dB", n)
}

// defaultMaxMemory is GOMEMLIMIT when the environment sets it, or else
// 80% of the memory the process could take as it starts: of the
// machine's memory, or of what is available (free, or held by caches
// the kernel can drop) beside what the process holds already, or of what
// its cgroup leaves, whichever is least. So a run on a history it cannot
// check stops with a message before the machine starts to swap or kill
// processes, even where other processes hold most of the memory.
// (watchMemory also stops a run when the memory left runs low while it
// runs.)
func defaultMaxMemory() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
			return l
		}
	}
	room := totalMemory()
	if avail := availableMemory(); avail >= 0 {
		if own := residentMemory() + avail; room <= 0 || own < room {
			room = own
		}
	}
	return room / 10 * 8
}

// lowMemory is how little memory left to the system (availableMemory)
// makes watchMemory stop a run that holds more than that itself: past it
// the kernel's out-of-memory killer is near, and it picks the largest
// process.
const lowMemory = 256 << 20

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

	mu sync.Mutex
	// peaks holds, for each stage, the peak resident memory of the run
	// when it began: the peak through the stage before.
	peaks []int64
	// onStop are called as the job stops, after its own cancels.
	onStop []func()
}

// stageBegins records the peak memory of the run as a stage begins.
func (j *job) stageBegins(string) {
	peak := peakResidentMemory()
	j.mu.Lock()
	j.peaks = append(j.peaks, peak)
	j.mu.Unlock()
}

// stageStats returns the time of each stage the run went through and the
// peak resident memory of the run at its end.
func (j *job) stageStats() []stageStat {
	spans := j.tracker.Stages()
	j.mu.Lock()
	peaks := slices.Clone(j.peaks)
	j.mu.Unlock()
	var out []stageStat
	for i, s := range spans {
		peak := peakResidentMemory()
		if i+1 < len(peaks) {
			peak = peaks[i+1]
		}
		if n := len(out); n > 0 && out[n-1].Stage == s.Stage {
			// A stage begun again (reading starts once per file and
			// once per pass): one line.
			out[n-1].MS += ms(s.End - s.Start)
			out[n-1].PeakRSS = peak
			continue
		}
		out = append(out, stageStat{Stage: s.Stage, MS: ms(s.End - s.Start), PeakRSS: peak})
	}
	return out
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
		stopWatch := watchMemory(l.maxMemory, tr, cancel)
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
	tr.OnStage = j.stageBegins
	j.stop = func() {
		once.Do(func() {
			j.stopped, j.stopCalled = context.Cause(ctx), true
			for i := len(cancels) - 1; i >= 0; i-- {
				cancels[i]()
			}
			j.mu.Lock()
			defer j.mu.Unlock()
			for _, f := range j.onStop {
				f()
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
	var cpu *outputFile
	if l.cpuProfile != "" {
		f, err := openOutput(l.cpuProfile, false)
		if err == nil {
			if err = pprof.StartCPUProfile(f); err != nil {
				f.Abort()
			}
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
			if err := cpu.Commit(); err != nil {
				fmt.Fprintf(stderr, "isocheck: --cpuprofile: %v\n", err)
			}
		}
		if l.memProfile != "" {
			// The heap profile is as of the last collection: one now
			// counts what the run allocated since.
			runtime.GC()
			err := writeFile(l.memProfile, nil, func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) })
			if err != nil {
				fmt.Fprintf(stderr, "isocheck: --memprofile: %v\n", err)
			}
		}
	}
}

// runtimeMemory is the memory the Go runtime holds from the system and
// has not returned. It counts address space the runtime has mapped but
// not touched, and misses memory outside the Go heap, so it stands in for
// the resident memory only where the system does not tell that.
func runtimeMemory() int64 {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(samples)
	total, released := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	if released > total {
		return 0
	}
	return int64(total - released)
}

// watchMemory makes the garbage collector work to keep the process under
// 90% of limit (a soft limit: it collects more often as memory nears it)
// and, when the process's resident memory passes limit all the same, or
// the system has less than lowMemory left, cancels the run with a cause
// wrapping progress.ErrResourceLimit: the innermost open part of it (see
// progress.Part) when there is one, the whole run otherwise. It
// checks at once, then every 20 ms. It returns a function that stops it.
//
// The limit watches the resident memory, what the operating system and
// its out-of-memory killer see, and the message gives the figure the
// decision was made on.
func watchMemory(limit byteSize, tr *progress.Tracker, cancel context.CancelCauseFunc) (stop func()) {
	old := debug.SetMemoryLimit(int64(limit) / 10 * 9)
	ticks := 0
	over := func() bool {
		used := residentMemory()
		// What the system has left is read every tenth tick (200 ms):
		// it takes reading three files.
		avail := int64(-1)
		if ticks%10 == 0 && used > lowMemory {
			avail = availableMemory()
		}
		ticks++
		var cause error
		switch {
		case used > int64(limit):
			cause = fmt.Errorf("%w: resident memory %s went past --max-memory %s", progress.ErrResourceLimit, formatBytes(used), limit.String())
		case avail >= 0 && avail < lowMemory:
			cause = fmt.Errorf("%w: the system has only %s of memory left (resident memory %s, under --max-memory %s): other processes hold the rest", progress.ErrResourceLimit, formatBytes(avail), formatBytes(used), limit.String())
		default:
			return false
		}
		// A part of the run that may end alone (one level of several)
		// ends, and the watch goes on for the next; else the run ends.
		if tr != nil && tr.Limit(cause) {
			return false
		}
		cancel(cause)
		return true
	}
	if over() {
		// Already past it: stop before any work starts, rather than let
		// a short run slip in under the first tick.
		return func() { debug.SetMemoryLimit(old) }
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if over() {
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
