package isocheck_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/isocheck/isocheck"
	"github.com/isocheck/isocheck/level"
	"github.com/isocheck/isocheck/verdict"
)

// Two transactions each read what the other overwrote: snapshot isolation
// allows it, serializability does not.
func Example() {
	h, err := isocheck.ReadFile("examples/write-skew.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range []level.Level{level.SI, level.SER} {
		v, err := isocheck.Check(context.Background(), h, l)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(l, v.Verdict)
		if v.Verdict == verdict.Violated {
			a := v.Report.Anomaly
			var names []string
			for _, t := range a.Txns {
				names = append(names, t.Name)
			}
			fmt.Println(a.Name, "minimal:", a.Minimal, "transactions:", names)
		}
	}
	// Output:
	// SI satisfied
	// SER violated
	// WriteSkew minimal: true transactions: [setup alice-leaves bob-leaves]
}

// Every level at once, strongest first.
func ExampleCheckAll() {
	h, err := isocheck.ReadFile("examples/long-fork.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	all, err := isocheck.CheckAll(context.Background(), h)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range all {
		name := ""
		if a := v.Report.Anomaly; a != nil {
			name = a.Name.String()
		}
		fmt.Println(strings.TrimSpace(fmt.Sprint(v.Level, " ", v.Verdict, " ", name)))
	}
	// Output:
	// SSER violated LongFork
	// SER violated LongFork
	// SI violated LongFork
	// PC violated LongFork
	// CC satisfied
	// RA satisfied
	// RC satisfied
}

// The explanation as a developer reads it.
func ExampleVerdict_report() {
	h, err := isocheck.ReadFile("examples/lost-update.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := isocheck.Check(context.Background(), h, level.SI)
	if err != nil {
		fmt.Println(err)
		return
	}
	v.Report.WriteText(os.Stdout)
	// Output:
	// SI: VIOLATED: LostUpdate (G-single)
	//   deposit-2 and withdraw both read balance=100 from deposit-1 and both wrote balance (150 and 70): whichever wrote second overwrote an update it never saw, so one update is lost
	// if deposit-2's write of balance came before withdraw's:
	//   deposit-2 =WW balance=> withdraw: if deposit-2's balance=150 was installed before withdraw's balance=70
	//   withdraw =RW balance=> deposit-2: withdraw read balance=100 (written by deposit-1), which deposit-2 overwrote with 150
	// if withdraw's write of balance came before deposit-2's:
	//   withdraw =WW balance=> deposit-2: if withdraw's balance=70 was installed before deposit-2's balance=150
	//   deposit-2 =RW balance=> withdraw: deposit-2 read balance=100 (written by deposit-1), which withdraw overwrote with 70
	// transactions:
	//   deposit-1 (session alice, committed) w(balance,100)  [examples/lost-update.jsonl:1]
	//   deposit-2 (session alice, committed) r(balance,100) w(balance,150)  [examples/lost-update.jsonl:2]
	//   withdraw (session bob, committed) r(balance,100) w(balance,70)  [examples/lost-update.jsonl:3]
	// note: 1 of the history's 4 transactions is left out: the 3 shown violate SI on their own, and without any one of them the rest would not
}
