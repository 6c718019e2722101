package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunOnline runs the online experiment at tiny scale: each level's
// stream gets samples of the checker's memory as it is written, and a
// verdict at its end, and the summary says how fast the windows went;
// the streams with fences are decided by their pieces.
func TestRunOnline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds isocheck and streams four histories")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build isocheck with")
	}
	run := runTiny(t, "online", 5*time.Minute)
	out, res, rows := run.out, run.outputs, run.rows
	samples := map[string]int{}
	for _, r := range rows {
		switch {
		case r.Axis == "seconds":
			if r.MaxRSS < 1<<20 {
				t.Errorf("%s at %s s: resident memory %d bytes", r.Level, r.X, r.MaxRSS)
			}
			samples[r.Level]++
		case r.X == "end" && r.Level == sustainedName:
			if r.Status != StatusSatisfied || r.Txns < 50_000 || r.Stats.Steps < 10 {
				t.Errorf("%s: %s, %d lines, %d pieces; want satisfied, decided by 10 pieces or more", r.Level, r.Status, r.Txns, r.Stats.Steps)
			}
		case r.X == "end" && strings.HasSuffix(r.Level, " fenced"):
			// The pieces between fences decide: the windows are not
			// counted, and the whole is never checked.
			if r.Status != StatusSatisfied || r.Txns < 10_000 || r.Stats.Steps < 5 {
				t.Errorf("%s: %s, %d lines, %d pieces; want satisfied, decided by 5 pieces or more", r.Level, r.Status, r.Txns, r.Stats.Steps)
			}
		case r.X == "end":
			if r.Status != StatusSatisfied || r.Txns != 10_000 || r.Stats.Steps == 0 || r.Stats.Elapsed <= 0 {
				t.Errorf("%s: %s, %d transactions, %d windows in %v; want satisfied, 10000, windows checked", r.Level, r.Status, r.Txns, r.Stats.Steps, r.Stats.Elapsed)
			}
		}
	}
	for _, s := range onlineStreams {
		if samples[s.name()] < 2 {
			t.Errorf("%s: %d samples of the stream", s.name(), samples[s.name()])
		}
	}
	for _, name := range []string{"online-memory.png", "online-stream.png"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
	if !strings.Contains(res.Summary, "The sustained stream is generated") {
		t.Errorf("the summary lacks the sustained stream:\n%s", res.Summary)
	}
	if !strings.Contains(res.Summary, "| SER | 10000 |") {
		t.Errorf("the summary lacks the SER stream:\n%s", res.Summary)
	}
}
