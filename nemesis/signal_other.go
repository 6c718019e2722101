//go:build !unix

package nemesis

import (
	"errors"
	"time"
)

type sig int

const (
	sigStop sig = iota
	sigCont
	sigKill
)

var errSignals = errors.New("signals to processes are not supported on this system")

func signal(pid int, s sig) error { return errSignals }

func awaitExit(pid int, timeout time.Duration) error { return errSignals }
