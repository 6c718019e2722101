package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// helpWidth is the width help text is filled to.
const helpWidth = 79

// A flagSection is a list of flags in a command's help, under a heading
// ("flags:" if none).
type flagSection struct {
	heading string
	fs      *flag.FlagSet
}

// writeHelp writes the help of the named command: its synopsis, what it
// does, its flags in sections, and its footer.
func writeHelp(w io.Writer, name string, sections ...flagSection) {
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		synopsis := strings.TrimSpace("isocheck " + c.name + " " + c.synopsis)
		fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, fill(strings.ToUpper(c.summary[:1])+c.summary[1:]+".", helpWidth))
		for _, s := range sections {
			if !hasFlags(s.fs) {
				continue
			}
			if s.heading == "" {
				fmt.Fprintf(w, "flags:\n")
			} else {
				fmt.Fprint(w, fill(s.heading, helpWidth))
			}
			printFlags(w, s.fs)
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, fill(c.footer, helpWidth))
	}
}

// hasFlags reports whether fs has flags the help shows.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	visibleFlags(fs, func(*flag.Flag) { n++ })
	return n > 0
}

// visibleFlags calls fn for each flag of fs that the help shows: all but
// the foreign ones.
func visibleFlags(fs *flag.FlagSet, fn func(*flag.Flag)) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(foreignFlag); !ok {
			fn(f)
		}
	})
}

// printFlags lists fs's flags as flag.PrintDefaults does, except for
// defaults: a flag's default is shown as "(default X)" unless it is the
// zero value of its type or the flag's usage already says what the
// default is, so that no line says it twice.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	visibleFlags(fs, func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		switch v := f.Value.(type) {
		case *byteSize:
			name = "size"
		case *timeoutValue:
			name = "duration"
		case *registerFlag:
			name = "int|nil"
		case *optionalValue:
			name = v.placeholder
		}
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		if !isZeroDefault(f) && !strings.Contains(usage, "default") {
			if t := reflect.TypeOf(f.Value); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.String {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// isZeroDefault reports whether f's default is the zero value of its
// type, which the help does not show.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	t := reflect.TypeOf(f.Value)
	if t.Kind() != reflect.Pointer {
		return false
	}
	zero, ok := reflect.New(t.Elem()).Interface().(flag.Value)
	return ok && f.DefValue == zero.String()
}

// fill fills each paragraph of text (paragraphs are separated by blank
// lines) to lines of at most width runes, and ends it with a newline.
func fill(text string, width int) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paras {
		var b strings.Builder
		n := 0
		for j, word := range strings.Fields(p) {
			l := utf8.RuneCountInString(word)
			switch {
			case j == 0:
			case n+1+l > width:
				b.WriteString("\n")
				n = 0
			default:
				b.WriteString(" ")
				n++
			}
			b.WriteString(word)
			n += l
		}
		paras[i] = b.String()
	}
	return strings.Join(paras, "\n\n") + "\n"
}
