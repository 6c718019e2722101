//go:build !amd64 || purego

package saturate

// joinClock sets dst to the entrywise maximum of dst and src, which is at
// least as long.
func joinClock(dst, src []int32) { joinClockGo(dst, src) }
