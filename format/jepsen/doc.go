// Package jepsen reads and writes Jepsen histories: the history.edn of
// Jepsen and of its checker Elle (Kingsbury and Alvaro, "Elle: Inferring
// Isolation Anomalies from Experimental Observations", PVLDB 14(3), 2020),
// and elle-cli's JSON form of it (specified in docs/formats.md). Both hold
// the same events, an invocation and a completion of each operation, in
// two syntaxes, which one reader pairs into transactions, or into the
// register operations (package register) of Jepsen's register tests.
//
// Package format calls ReadEDN, ReadElleJSON, ReadRegisters, WriteEDN and
// WriteElleJSON; use format.Read, format.Write and format.ReadRegisterOps
// (format.EDN, format.ElleJSON) to read and write histories.
// WriteRegisterEDN and WriteRegisterJSON write register operations.
package jepsen
