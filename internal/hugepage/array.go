package hugepage

import (
	"runtime"
	"unsafe"
)

// Array is an array of T mapped outside Go's heap, from the operating
// system directly, where the system allows: Free hands it back at once.
// A large array that is garbage long before the run ends (an index used
// by one stage) is handed back without a collection of the whole heap
// and the return of its free pages to the system, which took a fifth of
// a second at a million transactions.
//
// T must hold no pointers: the garbage collector does not look inside
// an Array.
type Array[T any] struct {
	// S is the array. It is invalid after Free.
	S []T
	m *mapping
}

// MapBytes is the size from which Alloc maps an array from the system:
// below it, a system call costs more than the heap.
const MapBytes = 1 << 20

// mapping is the memory of an Array, apart from it, so that a cleanup can
// hand it back when the Array is lost without Free.
type mapping struct{ b []byte }

// Alloc returns an Array of n zero T, mapped from the system from
// MapBytes on and backed by huge pages from MinBytes on, where the system
// allows. Where the system maps no memory for it, or the array is small,
// S is an ordinary slice of Go's heap and Free only drops it.
func Alloc[T any](n int) *Array[T] {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if size < MapBytes {
		return &Array[T]{S: make([]T, n)}
	}
	b := mmap(size)
	if b == nil {
		return &Array[T]{S: Make[T](n)}
	}
	if size >= MinBytes {
		advise(unsafe.Pointer(unsafe.SliceData(b)), size)
	}
	a := &Array[T]{S: unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), m: &mapping{b: b}}
	runtime.AddCleanup(a, func(m *mapping) { m.free() }, a.m)
	return a
}

// Free hands the array back. Using S afterwards is an error: it may
// fault.
func (a *Array[T]) Free() {
	a.S = nil
	if a.m != nil {
		a.m.free()
	}
}

func (m *mapping) free() {
	if m.b != nil {
		munmap(m.b)
		m.b = nil
	}
}
