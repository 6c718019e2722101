// Package formattest holds the helpers of the tests of package format and
// of the packages of each format: rendering and comparing histories,
// checking errors, building dbcop and Cobra inputs, and finding the shared
// corpus of third-party histories.
package formattest
