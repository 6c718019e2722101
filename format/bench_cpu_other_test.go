//go:build !unix

package format

func cpuTime() int64 { return 0 }
