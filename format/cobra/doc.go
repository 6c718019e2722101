// Package cobra reads the logs of the Cobra checker (Tan, Zhao, Mu and
// Walfish, "Cobra: Making Transactional Key-Value Stores Verifiably
// Serializable", OSDI 2020): a directory of T<n>.log files, one a session
// (specified in docs/formats.md).
//
// Package format calls Read and ReadLog; use format.ReadFile
// (format.Cobra) to read histories.
package cobra
