//go:build !unix

package format_test

func cpuTime() int64 { return 0 }
