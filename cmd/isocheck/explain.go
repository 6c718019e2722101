package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/isocheck/isocheck/draw"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/progress"
)

// runExplain is `isocheck explain`: check, then shrink a violation to a
// minimal counterexample and explain every dependency of it, in words
// or, with --svg, --png, --dot and --html, in pictures.
func runExplain(args []string, stdout, stderr io.Writer) int {
	return runCheck(args, stdout, stderr, checkMode{explain: true})
}

// addPictureFlags defines explain's flags that draw the counterexample.
func (cf *checkFlags) addPictureFlags(fs *flag.FlagSet) {
	fs.StringVar(&cf.dotFile, "dot", "", "write the counterexample as a Graphviz DOT graph to FILE; - writes it to stdout, and the report to stderr")
	fs.StringVar(&cf.svgFile, "svg", "", "draw the counterexample as an SVG picture in FILE (nothing to install); - writes it to stdout")
	fs.StringVar(&cf.pngFile, "png", "", "draw the counterexample as a PNG picture in FILE (nothing to install); - writes it to stdout")
}

// writePictures writes the pictures asked for of a counterexample: its
// DOT graph, which writeDOT writes (--dot), and its drawing, g, as SVG
// (--svg) and PNG (--png). A failure is reported on stderr but does not
// change the exit status: the verdict stands.
func (cf *checkFlags) writePictures(writeDOT func(io.Writer) error, g *draw.Graph, stderr io.Writer) {
	if cf.dotFile != "" {
		if err := writeFile(cf.dotFile, cf.fileOut, writeDOT); err != nil {
			fmt.Fprintf(stderr, "isocheck: --dot: %v\n", err)
		}
	}
	for _, p := range []struct {
		flag, file string
		write      func(io.Writer) error
	}{{"svg", cf.svgFile, g.WriteSVG}, {"png", cf.pngFile, g.WritePNG}} {
		if p.file == "" {
			continue
		}
		if err := writeFile(p.file, cf.fileOut, p.write); err != nil {
			fmt.Fprintf(stderr, "isocheck: --%s: %v\n", p.flag, err)
		}
	}
}

// explaining is the stage "explain" of a job: what check and explain do
// once they have a verdict (shrink a violation, explain it, list the other
// anomalies, cut their examples). The job's limits hold it as they hold
// the check: when its context ends, each step stops promptly, the verdict
// stands with the evidence at hand, and the report says what is missing.
type explaining struct {
	j *job
	// ctx is the job's context, with no tracker: the checks the
	// explanation runs do not report their stages, so that the stage the
	// progress bar shows, and a stop names, is "explain".
	ctx context.Context
	// left lists what the end of ctx left out of the explanation.
	left []string
}

// explainContext, when set (by tests), makes the context the explanation
// runs under from the job's: a test ends it to see the explanation cut
// short, as a limit reached at that moment would.
var explainContext func(context.Context) context.Context

// explaining begins the stage "explain" of j when there is a violation
// to explain (begin); without one, a stop keeps naming the stage of the
// check it stopped.
//
// The explanation has its own share of time (--explain-time): by default
// half the time the run took to its verdict, and at least minExplainTime,
// so that explaining costs at most half again the check (a hostile
// history can make the anomalies of the stronger levels far costlier to
// find than the verdict). Past it, as past --timeout, the verdict stands
// and the report says what is missing.
func (j *job) explaining(begin bool) *explaining {
	ctx := j.ctx
	ex := &explaining{j: j}
	if begin {
		progress.Start(ctx, "explain", 0, "")
		if explainContext != nil {
			ctx = explainContext(ctx)
		}
		if share := j.explainShare(); share > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, share, &explainTimeError{share: share, auto: !j.limits.explainTime.set})
			j.mu.Lock()
			j.onStop = append(j.onStop, cancel)
			j.mu.Unlock()
		}
	}
	ex.ctx = progress.WithTracker(ctx, nil)
	return ex
}

// explainShare is the time the explanation may take (0: no limit of its
// own), from --explain-time.
func (j *job) explainShare() time.Duration {
	if j.limits == nil {
		return 0
	}
	if e := j.limits.explainTime; e.set {
		return e.d
	}
	return max(minExplainTime, j.tracker.Snapshot().Elapsed/2)
}

// explainTimeError is the cause of an explanation's context that its own
// share of the time (--explain-time) ended.
type explainTimeError struct {
	share time.Duration
	auto  bool
}

func (e *explainTimeError) Error() string {
	if e.auto {
		return fmt.Sprintf("the explanation's share of the time, %v (half the time to the verdict, at least %v), ran out; give it longer with --explain-time 1m, or --explain-time 0 for no limit", e.share.Round(time.Millisecond), minExplainTime)
	}
	return fmt.Sprintf("--explain-time %v ran out; give it longer, or --explain-time 0 for no limit", e.share)
}

// Unwrap returns context.DeadlineExceeded.
func (e *explainTimeError) Unwrap() error { return context.DeadlineExceeded }

// missing records that the end of the context left what out.
func (ex *explaining) missing(what string) { ex.left = append(ex.left, what) }

// shrinkCut records what a report that interpret cut short (its CutShort
// set) lacks: a minimal counterexample, or part of the explanation of
// one.
func (ex *explaining) shrinkCut(rep *interpret.Report) {
	if rep.Anomaly != nil && !rep.Anomaly.Shrunk() {
		ex.missing("the counterexample shown is the checker's evidence, not shrunk to a minimal one")
	} else {
		ex.missing("part of the explanation of the counterexample is missing")
	}
}

// cutShort, once the job has stopped, marks rep, a report of a
// violation, cut short when the explanation was, with a note that says at
// which limit, in which stage, and what is missing; it reports whether it
// was.
func (ex *explaining) cutShort(rep *interpret.Report) bool {
	if len(ex.left) == 0 || rep.Anomaly == nil {
		return false
	}
	rep.CutShort = true
	rep.Anomaly.Notes = append(rep.Anomaly.Notes, ex.note())
	return true
}

// note says that the explanation was cut short: "explanation cut short at
// --timeout: the counterexample shown is the checker's evidence, not
// shrunk to a minimal one (timed out after 1s in stage explain; give it
// longer with --timeout 1m, or --timeout 0 for no limit)".
func (ex *explaining) note() string {
	at := "explanation cut short"
	cause := context.Cause(ex.ctx)
	var own *explainTimeError
	switch {
	case errors.As(cause, &own):
		return fmt.Sprintf("%s at --explain-time: %s (%v)", at, strings.Join(ex.left, "; "), own)
	case errors.Is(cause, progress.ErrResourceLimit):
		at += " at --max-memory"
	case errors.Is(cause, context.DeadlineExceeded):
		at += " at --timeout"
	}
	what := strings.Join(ex.left, "; ")
	if cause == nil {
		return at + ": " + what
	}
	return fmt.Sprintf("%s: %s (%s)", at, what, ex.j.stopReason(cause))
}
