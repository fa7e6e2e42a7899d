package ecs

import (
	"testing"
	"unsafe"
)

// TestRawCopiesAndAccessors: the untyped copies a move makes and the
// unchecked accessors read and write exactly the bytes of one value, for
// the sizes with a fast path (0, 8, 16) and others.
func TestRawCopiesAndAccessors(t *testing.T) {
	for _, size := range []uintptr{0, 1, 8, 12, 16, 40} {
		src := make([]byte, size+8)
		dst := make([]byte, size+8)
		for i := range src {
			src[i], dst[i] = byte(i+1), 0xEE
		}
		if size > 0 {
			copyBytes(unsafe.Pointer(&dst[4]), unsafe.Pointer(&src[4]), size)
		}
		for i := range dst {
			inside := i >= 4 && uintptr(i) < 4+size
			if inside && dst[i] != src[i] || !inside && dst[i] != 0xEE {
				t.Fatalf("copyBytes of %d bytes: byte %d is %#x", size, i, dst[i])
			}
		}
		if size > 0 {
			zeroBytes(unsafe.Pointer(&dst[4]), size)
		}
		for i := range dst {
			inside := i >= 4 && uintptr(i) < 4+size
			if inside && dst[i] != 0 || !inside && dst[i] != 0xEE {
				t.Fatalf("zeroBytes of %d bytes: byte %d is %#x", size, i, dst[i])
			}
		}
	}
	vals := []Position{{1, 2}, {3, 4}, {5, 6}}
	if p := valueAt(vals, 2); p != &vals[2] {
		t.Fatal("valueAt points elsewhere")
	}
	s := make([]uint32, 4, 8)
	*u32At(s, 6) = 7 // within capacity
	if s[:8][6] != 7 {
		t.Fatal("u32At wrote elsewhere")
	}
}
