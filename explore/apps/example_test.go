package apps_test

import (
	"context"
	"fmt"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/level"
)

// The courseware application races two clients for the one seat of a
// course: Read Committed lets both take it, serializability does not.
func Example() {
	app, _ := apps.Lookup("courseware")
	p := app.Program(2, 2, 1)
	for _, l := range []level.Level{level.RC, level.SER} {
		res, err := explore.Explore(context.Background(), p, explore.Options{Level: l})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: complete %v, some history breaks an assertion: %v\n", l, res.Complete, res.Failed > 0)
	}
	// Output:
	// RC: complete true, some history breaks an assertion: true
	// SER: complete true, some history breaks an assertion: false
}
