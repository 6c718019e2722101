// Package jsonl reads and writes isocheck's native history format, JSONL:
// one JSON transaction a line (specified in docs/formats.md). Large inputs
// are read in parallel, with the history and every error exactly those of
// reading line by line. A Recorder writes transactions one line at a time,
// as a run records them; RegisterOps reads the register operations of a
// history of one-key transactions.
//
// Package format calls Read and Write; use format.Read and format.Write
// (format.JSONL) to read and write histories.
package jsonl
