// Package sqljsonl reads and writes SQL histories (package sqlhistory):
// JSON lines, one a transaction of SQL statements and the rows each
// returned, after lines of initial rows (specified in docs/formats.md). A
// SQL history is not a key-value history: package format detects it, and
// refuses to read it as one.
package sqljsonl
