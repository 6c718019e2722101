package report

import (
	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/interpret"
	"github.com/isocheck/isocheck/lwt"
	"github.com/isocheck/isocheck/sqlcheck"
)

func FromKV(rep *interpret.Report) Anomaly             { return Anomaly{} }
func FromSQL(r *sqlcheck.Result) Anomaly               { return Anomaly{} }
func FromLWT(r lwt.Result, ops []lwt.Op) Anomaly       { return Anomaly{} }
func FromExplore(res *explore.Result) (Anomaly, error) { return Anomaly{}, nil }
