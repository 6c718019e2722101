package solver

// SolveCDCL exposes the cdcl engine to the tests of package solver_test,
// which encode real histories (package encode imports solver).
var SolveCDCL = solveCDCL

// SetCDCLChronoT sets the cdcl engine's chronological backtracking
// threshold for a measurement, returning a function that restores it.
func SetCDCLChronoT(v int32) (restore func()) {
	old := cdclChronoT
	cdclChronoT = v
	return func() { cdclChronoT = old }
}
