package solver

// SolveCDCL exposes the cdcl engine to the tests of package solver_test,
// which encode real histories (package encode imports solver).
var SolveCDCL = solveCDCL
