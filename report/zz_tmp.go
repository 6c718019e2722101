package report

import (
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/interpret"
)

func FromKV(rep *interpret.Report) Anomaly             { return Anomaly{} }
func FromExplore(res *explore.Result) (Anomaly, error) { return Anomaly{}, nil }
