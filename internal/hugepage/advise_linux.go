package hugepage

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a huge page on the architectures Go runs
// Linux on most: the range advised is aligned to it.
const hugePage = 2 << 20

func advise(p unsafe.Pointer, size uintptr) {
	start := (uintptr(p) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(p) + size) &^ (hugePage - 1)
	if end <= start {
		return
	}
	// The region is the live array's: the kernel only changes how it
	// backs it. An error (an old kernel, huge pages disabled) changes
	// nothing but the speed.
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
}
