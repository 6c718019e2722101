package verdict_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// Every vertical names what it found from one table: the weakest level
// that forbids an anomaly, Adya's class of it, and what it means.
func ExampleAnomaly() {
	a := verdict.LostUpdate
	fmt.Println(a, a.Class(), "forbidden from", a.Weakest())
	fmt.Println("SI forbids it:", verdict.Forbids(level.SI, a), "PC forbids it:", verdict.Forbids(level.PC, a))
	fmt.Println("a cycle SI forbids with no more specific name:", verdict.Generic(level.SI))

	json.NewEncoder(os.Stdout).Encode(struct {
		Name verdict.Anomaly `json:"name"`
		Key  verdict.ID      `json:"key"`
	}{a, "7"})
	// Output:
	// LostUpdate G-single forbidden from SI
	// SI forbids it: true PC forbids it: false
	// a cycle SI forbids with no more specific name: G-nonadjacent
	// {"name":"LostUpdate","key":7}
}

// The zero Outcome is no verdict, so that a result nobody filled in never
// reads as a pass.
func ExampleOutcome() {
	var nothing verdict.Outcome
	fmt.Println(nothing, nothing.OK())
	json.NewEncoder(os.Stdout).Encode(verdict.Outcome{Verdict: verdict.Violated}.Summary())
	// Output:
	// no verdict false
	// {"satisfied":false,"verdict":"violated"}
}
