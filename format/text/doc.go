// Package text reads and writes the text format of PolySI (Huang et al.,
// "Efficient Black-box Checking of Snapshot Isolation in Databases",
// PVLDB 16(6), 2023): one r(key,value,session,txn) or
// w(key,value,session,txn) operation a line, with the conventions of
// Plume, AWDIT and IsoVista (specified in docs/formats.md).
//
// Package format calls Read and Write; use format.Read and format.Write
// (format.Text) to read and write histories.
package text
