// Package format is the front of isocheck's history formats: it names
// them, detects which one an input is in, and reads or writes a history in
// any of them by calling the package of that format.
//
// The formats are specified in docs/formats.md. Each has a package of its
// own under format/:
//
//   - [JSONL] (format/jsonl): isocheck's native format, one JSON
//     transaction a line.
//   - [Text] (format/text): the text format of PolySI, one r(...) or w(...)
//     operation a line.
//   - [DBCop] (format/dbcop): the binary (bincode) format of the dbcop
//     tool.
//   - [Cobra] (format/cobra): a directory of the Cobra checker's logs, one
//     T<n>.log per session.
//   - [EDN] and [ElleJSON] (format/jepsen): the history.edn of Jepsen and
//     its checker Elle, one event a line or all in one vector, and
//     elle-cli's JSON form of it.
//   - [SQL] (format/sqljsonl): histories of SQL transactions (package
//     sqlhistory), one JSON transaction a line.
//
// # Entry points
//
// [ReadFile], [ReadFileInfo] and [ReadFileContext] read a key-value
// history (package history) from a file, or a Cobra directory; [Read],
// [ReadInfo] and [ReadContext] read one from an io.Reader. Given [Auto],
// they detect the format from the content, as [Detect] does; [Info] says
// what they read. [Write] writes a history in any of the formats but
// Cobra and SQL. [ParseFormat] reads a format's name.
//
// [Detect] says which format a file or directory holds, [DetectBytes]
// which format bytes are in, and [Resolve] which format to read a
// command's input in. A SQL history is not a key-value history: package
// format/sqljsonl reads and writes it, and ReadFile and Read refuse it,
// saying so.
//
// [ReadRegisterOps] and [ReadRegisterOpsFile] read the register operations
// (register.Op: reads, writes and compare-and-sets) of a Jepsen history,
// or of a JSONL history of one-key transactions, for the linearizability
// checker (package lwt). A jsonl.Recorder (package format/jsonl) writes
// transactions to a JSONL history one line at a time, as a run records
// them.
//
// The Context forms report their progress in bytes on a progress.Meter of
// the context and stop soon after it ends, with an error that satisfies
// progress.Stopped.
//
// # Empty inputs
//
// An input that is empty or blank (only spaces, tabs, carriage returns and
// newlines, after an optional UTF-8 byte order mark) is a history of no
// transaction in every format; detected, its Info.Format is [Empty]. A
// Cobra directory whose logs are all blank is one too, but a directory
// without any T*.log file is an error.
//
// # Limits
//
// Readers hold no more than they must of inputs, which may be hostile: a
// line of a text format, a transaction of a dbcop file and a string of a
// dbcop header are at most 64 MiB; counts of a dbcop file are checked
// against the rest of the input (or, when its size is unknown, a bound)
// before the reader relies on them; the logs of a Cobra directory must be
// regular files; a history holds at most 2^31-1 operations; an event or
// an init line of a SQL history has at most 2^20 rows, and a transaction
// at most 2^20 events.
//
// # Errors
//
// Every error caused by the content of an input is an [*Error], which gives
// the file and the line (text formats), the byte offset (binary formats) or
// neither (the input as a whole) of the problem; the message of an error
// inside a line starts with its column ("column 12: ...").
package format
