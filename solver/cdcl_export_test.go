package solver

import "context"

// SolveCDCL exposes the cdcl engine to the tests of package solver_test,
// which encode real histories (package encode imports solver).
var SolveCDCL = solveCDCL

// DefaultCDCLChronoT is the cdcl engine's chronological backtracking
// threshold.
var DefaultCDCLChronoT = defaultCDCL.chronoT

// SolveCDCLChronoT is SolveCDCL with the chronological backtracking
// threshold v, for measurements.
func SolveCDCLChronoT(ctx context.Context, p *Problem, v int32) (*Result, error) {
	tune := defaultCDCL
	tune.chronoT = v
	return solveCDCLTuned(ctx, p, tune)
}
