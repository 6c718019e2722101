package lwt

import "github.com/isocheck/isocheck/format"

// Names of package format's register kinds and outcomes, kept while
// callers move to format's own names. An Op's Kind is a
// format.RegisterKind and its Outcome a format.Outcome.

// Kind is what an operation does.
//
// Deprecated: use format.RegisterKind.
type Kind = format.RegisterKind

// Outcome is how an operation completed.
//
// Deprecated: use format.Outcome.
type Outcome = format.Outcome

const (
	// Read is format.RegisterRead.
	//
	// Deprecated: use format.RegisterRead.
	Read = format.RegisterRead
	// Write is format.RegisterWrite.
	//
	// Deprecated: use format.RegisterWrite.
	Write = format.RegisterWrite
	// CAS is format.RegisterCAS.
	//
	// Deprecated: use format.RegisterCAS.
	CAS = format.RegisterCAS
	// Ok is format.OutcomeOK.
	//
	// Deprecated: use format.OutcomeOK.
	Ok = format.OutcomeOK
	// Fail is format.OutcomeFail.
	//
	// Deprecated: use format.OutcomeFail.
	Fail = format.OutcomeFail
	// Info is format.OutcomeInfo.
	//
	// Deprecated: use format.OutcomeInfo.
	Info = format.OutcomeInfo
)
