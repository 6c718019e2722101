package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestOptionalValue: a flag of optional value (run's --check) stands
// alone at the end of the arguments or before a flag, and takes the
// argument after it as its value otherwise.
func TestOptionalValue(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		value string
		alone bool
		out   string
		pos   []string
	}{
		{[]string{"--check"}, "", true, "", nil},
		{[]string{"-check", "-o", "f"}, "", true, "f", nil},
		{[]string{"--check", "si", "-o", "f"}, "si", false, "f", nil},
		{[]string{"--check=all"}, "all", false, "", nil},
		{[]string{"-o", "f", "--check", "ser"}, "ser", false, "f", nil},
		{[]string{"--", "--check"}, "", false, "", []string{"--check"}},
		{[]string{"--check", "-"}, "", true, "", []string{"-"}},
		{[]string{"x", "--check", "si"}, "si", false, "", []string{"x"}},
	} {
		fs := newFlagSet("test", io.Discard)
		var check optionalValue
		fs.Var(&check, "check", "")
		out := fs.String("o", "", "")
		pos, _, err := parseWithHelp(fs, tc.args, func(io.Writer) {})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if check.value != tc.value || check.alone != tc.alone || *out != tc.out || !slices.Equal(pos, tc.pos) {
			t.Errorf("%q: --check %q (alone %v), -o %q, positional %q; want %q (alone %v), %q, %q",
				tc.args, check.value, check.alone, *out, pos, tc.value, tc.alone, tc.out, tc.pos)
		}
	}
}

// TestForeignFlags: a flag of the other command parses as it does there,
// bool or not, is reported as given, and is left out of the help.
func TestForeignFlags(t *testing.T) {
	other := flag.NewFlagSet("other", flag.ContinueOnError)
	other.Bool("progress", false, "")
	other.Int("keys", 1, "")
	fs := newFlagSet("test", io.Discard)
	fs.String("o", "", "")
	addForeignFlags(fs, other)
	pos, _, err := parseWithHelp(fs, []string{"--progress", "x", "--keys", "3"}, func(io.Writer) {})
	if err != nil || !slices.Equal(pos, []string{"x"}) {
		t.Fatalf("positional %q, %v; want [x]", pos, err)
	}
	if got := foreignFlagsGiven(fs); !slices.Equal(got, []string{"keys", "progress"}) {
		t.Errorf("foreign flags given: %q", got)
	}
	if _, _, err := parseWithHelp(fs, []string{"--keys", "many"}, func(io.Writer) {}); err == nil {
		t.Error("a foreign flag took a value its own command refuses")
	}
	n := 0
	visibleFlags(fs, func(*flag.Flag) { n++ })
	if n != 1 {
		t.Errorf("%d flags shown in the help, want 1 (-o)", n)
	}
}
