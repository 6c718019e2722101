package run

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/isocheck/isocheck/verdict"
)

// stats is what one session counted.
type stats struct {
	latencies []time.Duration // of committed transactions
	aborts    []string        // reasons
	unknown   int
}

// Summary is what a run did.
type Summary struct {
	Planned   int // transactions in the plan
	Committed int
	Aborted   int
	Unknown   int
	// AbortReasons counts aborts by the database's reason.
	AbortReasons map[string]int
	Duration     time.Duration
	// Interrupted says the run was stopped (its context ended) before the
	// plan's end.
	Interrupted bool
	// SessionErrors says why sessions stopped early (they could not
	// reconnect), in the order they stopped.
	SessionErrors []error
	// Latency percentiles of committed transactions, begin to commit.
	P50, P95, P99, Max time.Duration
	latencies          []time.Duration
}

func (s *Summary) add(st *stats) {
	s.Committed += len(st.latencies)
	s.Aborted += len(st.aborts)
	s.Unknown += st.unknown
	for _, r := range st.aborts {
		s.AbortReasons[r]++
	}
	s.latencies = append(s.latencies, st.latencies...)
}

func (s *Summary) finish() {
	slices.Sort(s.latencies)
	pct := func(p float64) time.Duration {
		if len(s.latencies) == 0 {
			return 0
		}
		return s.latencies[min(len(s.latencies)-1, int(p*float64(len(s.latencies))))]
	}
	s.P50, s.P95, s.P99 = pct(0.50), pct(0.95), pct(0.99)
	if n := len(s.latencies); n > 0 {
		s.Max = s.latencies[n-1]
	}
	s.latencies = nil
}

// Done is the number of transactions that ran, whatever their outcome.
func (s *Summary) Done() int { return s.Committed + s.Aborted + s.Unknown }

// Incomplete reports whether some of the plan's transactions did not run:
// the run was interrupted or sessions stopped early. The history of an
// incomplete run is a partial one; a check of it that finds no violation
// is no pass.
func (s *Summary) Incomplete() bool { return s.Done() < s.Planned }

// Why says why an incomplete run stopped: "interrupted", or the first
// session's error, which says that the database stopped answering when
// sessions that ran transactions could no longer connect.
func (s *Summary) Why() string {
	switch {
	case s.Interrupted:
		return "interrupted"
	case len(s.SessionErrors) > 0:
		err := s.SessionErrors[0]
		if _, ok := errors.AsType[*ReconnectError](err); ok && s.Done() > 0 {
			return "the database stopped answering: " + err.Error()
		}
		return err.Error()
	}
	return ""
}

// Outcome is the verdict on the run, given the outcome of the check of
// its history. A violation in part of a history is one of the whole, but a
// partial history that keeps the level says nothing of the plan: on an
// incomplete run, a Satisfied check gives no verdict, with the reason,
// and Stopped when the run was interrupted.
func (s *Summary) Outcome(checked verdict.Outcome) verdict.Outcome {
	if checked.Verdict != verdict.Satisfied || !s.Incomplete() {
		return checked
	}
	reason := fmt.Sprintf("incomplete run: %d of the plan's %d transactions not run", s.Planned-s.Done(), s.Planned)
	if why := s.Why(); why != "" {
		reason += " (" + why + ")"
	}
	return verdict.Outcome{Reason: reason, Stopped: s.Interrupted}
}

// Throughput is the completed transactions (of any outcome) per second.
func (s *Summary) Throughput() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Done()) / s.Duration.Seconds()
}

// Write prints the summary for people.
func (s *Summary) Write(w io.Writer) {
	done := s.Done()
	fmt.Fprintf(w, "%d transactions in %.2fs (%.0f/s)", done, s.Duration.Seconds(), s.Throughput())
	if s.Incomplete() {
		fmt.Fprintf(w, ", INCOMPLETE: %d of the plan's %d transactions not run", s.Planned-done, s.Planned)
		if why := s.Why(); why != "" {
			fmt.Fprintf(w, " (%s)", why)
		}
	}
	fmt.Fprintf(w, "\n  committed %d, aborted %d (%s), unknown %d\n", s.Committed, s.Aborted, pctOf(s.Aborted, done), s.Unknown)
	reasons := make([]string, 0, len(s.AbortReasons))
	for r := range s.AbortReasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := s.AbortReasons[reasons[i]], s.AbortReasons[reasons[j]]
		return a > b || a == b && reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(w, "    %6d  %s\n", s.AbortReasons[r], r)
	}
	if s.Committed > 0 {
		fmt.Fprintf(w, "  latency of commits: p50 %s, p95 %s, p99 %s, max %s\n", round(s.P50), round(s.P95), round(s.P99), round(s.Max))
	}
	for _, err := range s.SessionErrors {
		fmt.Fprintf(w, "  stopped early: %v\n", err)
	}
}

func pctOf(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
