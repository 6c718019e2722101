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
// asked for the command's help, which parse has written: the command's
// synopsis, what it does, fs's flags, and its footer.
func parse(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	name := strings.TrimPrefix(fs.Name(), "isocheck ")
	return parseWithHelp(fs, args, func(w io.Writer) { writeHelp(w, name, flagSection{fs: fs}) })
}

// parseWithHelp is parse for a command whose help writeHelp writes.
//
// A flag whose value is an *optionalValue may be given alone or with a
// value: the argument after it is its value unless that is a flag or
// there is none.
func parseWithHelp(fs *flag.FlagSet, args []string, writeHelp func(io.Writer)) (pos []string, help bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			help := errors.Is(err, flag.ErrHelp)
			if help {
				writeHelp(fs.Output())
			} else {
				// The flag package has said what is wrong; the whole help
				// would bury it.
				fmt.Fprintf(fs.Output(), "run '%s -h' for its flags\n", fs.Name())
			}
			return nil, help, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, nil
		}
		if v := givenAlone(fs, args[:len(args)-len(rest)]); v != nil && !strings.HasPrefix(rest[0], "-") {
			v.setValue(rest[0])
		} else {
			pos = append(pos, rest[0])
		}
		args = rest[1:]
	}
}

// givenAlone returns the optional value of the flag that ends parsed, the
// arguments fs has just parsed, if that flag was given alone.
func givenAlone(fs *flag.FlagSet, parsed []string) *optionalValue {
	if len(parsed) == 0 {
		return nil
	}
	last := parsed[len(parsed)-1]
	name := strings.TrimPrefix(strings.TrimPrefix(last, "-"), "-")
	if name == last || strings.Contains(name, "=") {
		return nil
	}
	f := fs.Lookup(name)
	if f == nil {
		return nil
	}
	if v, ok := f.Value.(*optionalValue); ok && v.alone {
		return v
	}
	return nil
}

// optionalValue is the value of a flag that may be given alone (--check)
// or with a value (--check LEVEL, --check=LEVEL); see parseWithHelp.
type optionalValue struct {
	value string // the value given; "" when given alone or not at all
	alone bool   // the flag was given last without a value
	// placeholder names the value in the help; "" shows the flag alone.
	placeholder string
}

func (v *optionalValue) String() string {
	if v == nil {
		return ""
	}
	return v.value
}

// Set records a value, or, given "true" (as the flag package gives a
// flag without one), that the flag was given alone.
func (v *optionalValue) Set(s string) error {
	if s == "true" {
		v.value, v.alone = "", true
		return nil
	}
	v.setValue(s)
	return nil
}

func (v *optionalValue) setValue(s string) { v.value, v.alone = s, false }

// IsBoolFlag tells the flag package that the flag may stand alone.
func (v *optionalValue) IsBoolFlag() bool { return true }

// foreignFlag is a flag of another command that takes the same arguments
// (run's key-value workloads and SQL applications), defined on a
// command's flags so that it parses as it would there, and is refused
// with a message that names the command it belongs to. The help does not
// show it.
type foreignFlag struct{ flag.Value }

// IsBoolFlag reports whether the flag is a boolean one where it belongs.
func (f foreignFlag) IsBoolFlag() bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// addForeignFlags defines on fs, as foreign flags, every flag of other
// that fs lacks.
func addForeignFlags(fs, other *flag.FlagSet) {
	other.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(foreignFlag{f.Value}, f.Name, f.Usage)
		}
	})
}

// foreignFlagsGiven lists the foreign flags given on fs, by name.
func foreignFlagsGiven(fs *flag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *flag.Flag) {
		if _, ok := f.Value.(foreignFlag); ok {
			names = append(names, f.Name)
		}
	})
	return names
}

// parseStatus is the exit status of a command whose flags did not parse:
// 0 when the user asked for help, 2 otherwise.
func parseStatus(help bool) int {
	if help {
		return exitSatisfied
	}
	return exitBadInput
}
