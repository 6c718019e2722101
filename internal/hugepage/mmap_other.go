//go:build !linux

package hugepage

func mmap(size uintptr) []byte { return nil }

func munmap([]byte) {}
