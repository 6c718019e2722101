package report

import (
	"strings"
	"testing"

	"github.com/isocheck/isocheck/verdict"
)

// Every vertical's explanation fills the page's anomaly the same way:
// a counterexample that is not minimal says why, and no text reaches the
// page raw.
func TestFromFinding(t *testing.T) {
	for _, c := range []struct {
		f        verdict.Finding
		minimal  bool
		shownHas string
	}{
		{verdict.Finding{Name: verdict.WriteSkew, Class: "G2-item", Summary: "a and b", Minimal: true}, true, ""},
		{verdict.Finding{Name: verdict.Phantom, Summary: "x", NotMinimal: "shrinking did not finish"}, false, "Not minimal: shrinking did not finish."},
		{verdict.Finding{Name: verdict.LostUpdate, Summary: "t\x1b[2J read", NotMinimal: "t\x1bc could go"}, false, "Not minimal:"},
	} {
		a := fromFinding("SER", c.f)
		if a.Name != c.f.Name.String() || a.Level != "SER" || a.Minimal != c.minimal {
			t.Errorf("%+v: %+v", c.f, a)
		}
		if c.shownHas == "" && a.Shown != "" || !strings.Contains(a.Shown, c.shownHas) {
			t.Errorf("%+v: shown %q, want it to say %q", c.f, a.Shown, c.shownHas)
		}
		if strings.ContainsRune(a.Summary+a.Shown, 0x1b) {
			t.Errorf("%+v: an escape reaches the page raw: %q %q", c.f, a.Summary, a.Shown)
		}
	}
}
