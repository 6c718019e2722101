package format

// Detection's internals, for the tests.
var (
	Sniff        = sniff
	EmptyHistory = emptyHistory
)

// SniffLen is how much of an input detection reads.
const SniffLen = sniffLen
