// Package scan holds what the readers and writers of the formats under
// format/ share: errors that name a place in an input (Error), reading
// lines and JSON tokens, reading through a progress meter that can stop,
// the limits on hostile inputs, and the mapping of a history's keys and
// values to integers for the formats that hold only integers.
package scan
