package hugepage

import "syscall"

// mmap maps size bytes of zero memory, or returns nil.
func mmap(size uintptr) []byte {
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

func munmap(b []byte) { syscall.Munmap(b) }
