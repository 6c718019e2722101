package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlagSet returns the flag set of the named command, whose usage is the
// command's help: its synopsis, what it does, every flag, and its footer.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("isocheck "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// parse writes the help when asked for it, and a hint after an error.
	fs.Usage = func() {}
	return fs
}

// parse parses flags that may come before or after the positional
// arguments, and returns the positional ones. help reports that the user
// asked for the command's help (which fs has printed).
func parse(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			help := errors.Is(err, flag.ErrHelp)
			if help {
				writeHelp(fs.Output(), strings.TrimPrefix(fs.Name(), "isocheck "), fs)
			} else {
				// The flag package has said what is wrong; the whole help
				// would bury it.
				fmt.Fprintf(fs.Output(), "run '%s -h' for its flags\n", fs.Name())
			}
			return nil, help, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, false, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseStatus is the exit status of a command whose flags did not parse:
// 0 when the user asked for help, 2 otherwise.
func parseStatus(help bool) int {
	if help {
		return exitSatisfied
	}
	return exitBadInput
}
