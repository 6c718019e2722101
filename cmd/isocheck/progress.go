package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/isocheck/isocheck/progress"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if r, ok := w.(*reportWriter); ok {
		w = r.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress draws the tracker's stage, its progress and the elapsed
// time on w, once the run has lasted after, and returns a function that
// stops drawing and clears the bar.
func showProgress(tr *progress.Tracker, w io.Writer, after time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var bar *progressbar.ProgressBar
		var stage string // and note
		for {
			select {
			case <-done:
				if bar != nil {
					bar.Clear()
				}
				return
			case <-tick.C:
			}
			s := tr.Snapshot()
			if s.Elapsed < after || s.Stage == "" {
				continue
			}
			desc := description(s)
			if bar == nil || desc != stage {
				if bar != nil {
					bar.Clear()
				}
				stage = desc
				bar = newBar(w, s)
			}
			if s.Total > 0 && s.Done > s.Total {
				bar.ChangeMax64(s.Done)
			}
			bar.Set64(s.Done)
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// newBar makes the bar of one stage: a bar when its size is known, a
// spinner when not.
func newBar(w io.Writer, s progress.Snapshot) *progressbar.ProgressBar {
	max := s.Total
	if max <= 0 {
		max = -1
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description(s)),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(s.Total > 0),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(isTerminal(w)),
	}
	if s.Unit == "bytes" {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount())
		if s.Unit != "" {
			opts = append(opts, progressbar.OptionSetItsString(s.Unit))
		}
	}
	return progressbar.NewOptions64(max, opts...)
}

// description is what the bar of s says before it: the stage, and the
// run's note.
func description(s progress.Snapshot) string {
	if s.Note == "" {
		return s.Stage
	}
	return s.Stage + " · " + s.Note
}
