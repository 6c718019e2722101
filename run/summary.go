package run

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// reconnect), in the order they stopped: *SessionError, each.
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
			return "the database stopped answering: " + oneLine(err.Error())
		}
		return oneLine(err.Error())
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
	for _, line := range stoppedEarly(s.SessionErrors) {
		fmt.Fprintf(w, "  stopped early: %s\n", line)
	}
}

// stoppedEarly says why sessions stopped early, one line per reason, in
// the order sessions first stopped for it: "session 3: REASON" for one
// session, "8 sessions (3, 0, 1, ...): REASON" for several, as when the
// database stopped answering them all.
func stoppedEarly(errs []error) []string {
	type group struct {
		reason   string
		sessions []int
		n        int
	}
	var groups []*group
	byReason := map[string]*group{}
	for _, err := range errs {
		reason, session := oneLine(err.Error()), -1
		if se, ok := errors.AsType[*SessionError](err); ok {
			reason, session = oneLine(se.Err.Error()), se.Session
		}
		g := byReason[reason]
		if g == nil {
			g = &group{reason: reason}
			byReason[reason] = g
			groups = append(groups, g)
		}
		g.n++
		if session >= 0 {
			g.sessions = append(g.sessions, session)
		}
	}
	lines := make([]string, len(groups))
	for i, g := range groups {
		switch {
		case g.n == 1 && len(g.sessions) == 1:
			lines[i] = fmt.Sprintf("session %d: %s", g.sessions[0], g.reason)
		case len(g.sessions) == g.n:
			lines[i] = fmt.Sprintf("%d sessions (%s): %s", g.n, sessionList(g.sessions), g.reason)
		case g.n == 1:
			lines[i] = g.reason
		default:
			lines[i] = fmt.Sprintf("%d sessions: %s", g.n, g.reason)
		}
	}
	return lines
}

// maxSessionsListed is how many sessions a line of stoppedEarly names.
const maxSessionsListed = 8

// sessionList names sessions: "3, 0, 1", or the first few and "...".
func sessionList(sessions []int) string {
	var b strings.Builder
	for i, s := range sessions {
		if i == maxSessionsListed {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(s))
	}
	return b.String()
}

// oneLine puts an error message of several lines, as a database driver
// may give (a line per address it tried, indented by a tab), on one line:
// each line trimmed, its tabs made spaces, and joined to the one before
// by a space after a colon, else by "; ".
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\n\r\t") {
		return msg
	}
	var b strings.Builder
	for line := range strings.Lines(msg) {
		line = strings.ReplaceAll(strings.TrimSpace(line), "\t", " ")
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if strings.HasSuffix(b.String(), ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
	}
	return b.String()
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
