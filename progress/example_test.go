package progress_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/isocheck/isocheck/progress"
	"github.com/isocheck/isocheck/verdict"
)

// A stage stopped by its context's deadline gives no verdict, with the
// stage and the reason in the user's terms.
func ExampleOutcome() {
	tr := progress.NewTracker()
	ctx, cancel := context.WithCancelCause(progress.WithTracker(context.Background(), tr))
	m := progress.Start(ctx, "solve", 0, "conflicts")
	cancel(context.DeadlineExceeded)
	err := m.Add(1)

	o, stopped := progress.Outcome(ctx, err, false)
	fmt.Println(stopped, o, "in stage", o.Stage)
	json.NewEncoder(os.Stdout).Encode(o.Summary())

	var nothing verdict.Outcome
	fmt.Println("the zero outcome:", nothing, nothing.OK())
	// Output:
	// true no verdict: timed out in stage solve
	// {"satisfied":null,"verdict":"no verdict","reason":"timed out"}
	// the zero outcome: no verdict false
}
