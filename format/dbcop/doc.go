// Package dbcop reads and writes the binary (bincode) history format of
// dbcop, the tool of Biswas and Enea, "On the Complexity of Checking
// Transactional Consistency", OOPSLA 2019 (specified in docs/formats.md).
//
// Package format calls Read and Write; use format.Read and format.Write
// (format.DBCop) to read and write histories.
package dbcop
