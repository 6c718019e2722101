package apps_test

import (
	"context"
	"fmt"

	"github.com/isocheck/isocheck/explore"
	"github.com/isocheck/isocheck/explore/apps"
	"github.com/isocheck/isocheck/level"
)

func Example() {
	app, _ := apps.Lookup("courseware")
	p := app.Program(2, 2, 1)
	for _, l := range []level.Level{level.RC, level.SER} {
		res, err := explore.Explore(context.Background(), p, explore.Config{Level: l})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: %d histories, %d break an assertion\n", l, res.Histories, res.Failed)
	}
	// Output:
	// RC: 212 histories, 157 break an assertion
	// SER: 5 histories, 0 break an assertion
}
