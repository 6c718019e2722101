package report

import (
	"slices"
	"strings"

	"github.com/isocheck/isocheck/verdict"
)

// banner is the page's main result in one line. Text says it in words
// ("SI violated: WriteSkew (G2-item)", "SER satisfied", "no verdict: timed
// out"), so that it reads without its colour; Class colours it.
type banner struct {
	Class, Text string
}

// maxBannerLevels is how many satisfied levels the banner names.
const maxBannerLevels = 7

// bannerOf says what the page found, the most telling first: a
// violation (the main anomaly's, or the weakest level violated), then a
// level with no verdict, then the levels kept.
func bannerOf(p *Page, c *cleaner) banner {
	if len(p.Anomalies) > 0 {
		a := p.Anomalies[0]
		text := heading(c.short(a.Level), c.short(a.Name), c.short(a.Class))
		if a.ImpliedBy != "" {
			text += ", as " + c.short(a.ImpliedBy)
		}
		return banner{Class: "violated", Text: text}
	}
	for i := len(p.Levels) - 1; i >= 0; i-- {
		if l := p.Levels[i]; l.Verdict == verdict.Violated {
			return banner{Class: "violated", Text: heading(c.short(l.Name), c.short(l.Anomaly), "")}
		}
	}
	// Of the levels without a verdict, the one that stopped the run says
	// why; those not checked because of it say less.
	unknown := slices.IndexFunc(p.Levels, func(l Level) bool {
		return l.Verdict == verdict.Unknown && !strings.HasPrefix(l.Reason, "not checked")
	})
	if unknown < 0 {
		unknown = slices.IndexFunc(p.Levels, func(l Level) bool { return l.Verdict == verdict.Unknown })
	}
	if unknown >= 0 {
		l := p.Levels[unknown]
		text := "no verdict"
		if len(p.Levels) > 1 {
			text += " for " + c.short(l.Name)
		}
		if l.Reason != "" {
			text += ": " + c.prose(l.Reason)
		}
		return banner{Class: "unknown", Text: text}
	}
	if len(p.Levels) == 0 {
		return banner{Class: "unknown", Text: "no verdict: no level was checked"}
	}
	if len(p.Levels) > maxBannerLevels {
		return banner{Class: "satisfied", Text: "all levels checked satisfied"}
	}
	names := make([]string, len(p.Levels))
	for i, l := range p.Levels {
		names[i] = c.short(l.Name)
	}
	return banner{Class: "satisfied", Text: strings.Join(names, ", ") + " satisfied"}
}

// heading names a violation: "SI violated: WriteSkew (G2-item)". Each
// part may be missing.
func heading(level, name, class string) string {
	var b strings.Builder
	if level != "" {
		b.WriteString(level + " ")
	}
	b.WriteString("violated")
	if name != "" {
		b.WriteString(": " + name)
	}
	if class != "" && class != name {
		b.WriteString(" (" + class + ")")
	}
	return b.String()
}

// verdictClass is the CSS class of a verdict.
func verdictClass(v verdict.Verdict) string {
	switch v {
	case verdict.Satisfied:
		return "satisfied"
	case verdict.Violated:
		return "violated"
	}
	return "unknown"
}
