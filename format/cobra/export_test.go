package cobra

// The write ids of the initial state and of no write, for the tests.
const (
	CobraInit = cobraInit
	CobraNull = cobraNull
)
