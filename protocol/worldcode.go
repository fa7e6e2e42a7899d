package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The byte coding of world frames' bulk parts: row sets, entity lists and
// raw component values. Values are XORed with what the reader already holds
// at the same row (so an unchanged value is zeros and a slowly changing one
// is mostly zeros) and laid out in byte planes (byte 0 of every value, then
// byte 1, ...), which puts the bytes that rarely change side by side. The
// frame's compression then squeezes both.

// Row set codings: the first byte says which.
const (
	rowsList = 0 // uvarint count, then uvarint gaps (the first row, then row - previous - 1)
	rowsAll  = 1 // every row of the table, 0 to Len-1
)

// AppendRows codes a set of rows, ascending, of a table of n rows.
func AppendRows(dst []byte, rows []int32, n int) []byte {
	if len(rows) == 0 {
		return dst
	}
	if len(rows) == n {
		return append(dst, rowsAll)
	}
	dst = append(dst, rowsList)
	dst = binary.AppendUvarint(dst, uint64(len(rows)))
	prev := int32(-1)
	for _, r := range rows {
		dst = binary.AppendUvarint(dst, uint64(r-prev-1))
		prev = r
	}
	return dst
}

// DecodeRows reads a row set of a table of n rows, charging the list to
// budget.
func DecodeRows(b []byte, n int, budget *AllocBudget) ([]int32, error) {
	if len(b) == 0 {
		return nil, nil
	}
	switch b[0] {
	case rowsAll:
		if len(b) != 1 {
			return nil, errors.New("row set: bytes after \"all\"")
		}
		if err := budget.Take(n, 4, "rows"); err != nil {
			return nil, fmt.Errorf("row set: %w", err)
		}
		rows := make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
		return rows, nil
	case rowsList:
	default:
		return nil, fmt.Errorf("row set: unknown coding %d", b[0])
	}
	b = b[1:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > uint64(n) || count > uint64(len(b)) {
		return nil, fmt.Errorf("row set: bad count for a table of %d rows", n)
	}
	b = b[k:]
	if err := budget.Take(int(count), 4, "rows"); err != nil {
		return nil, fmt.Errorf("row set: %w", err)
	}
	rows := make([]int32, count)
	next := uint64(0)
	for i := range rows {
		gap, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errors.New("row set: cut short")
		}
		b = b[k:]
		next += gap
		if next >= uint64(n) {
			return nil, fmt.Errorf("row set: row %d of a table of %d rows", next, n)
		}
		rows[i] = int32(next)
		next++
	}
	if len(b) != 0 {
		return nil, errors.New("row set: bytes after the rows")
	}
	return rows, nil
}

// AppendPlanes appends vals (values of size bytes each), each XORed with
// base's value at the same index (zero past base's end), in byte planes.
func AppendPlanes(dst, vals, base []byte, size int) []byte {
	if size == 0 {
		return dst
	}
	n := len(vals) / size
	p := borrowScratch(n * size)
	defer returnScratch(p)
	x := *p
	copy(x, vals[:n*size])
	xorInto(x, base)
	return appendPlaned(dst, x, size)
}

// appendPlaned appends x (values of size bytes each) in byte planes: the
// first byte of every value, then the second, and so on.
func appendPlaned(dst, x []byte, size int) []byte {
	n := len(x) / size
	start := len(dst)
	if cap(dst)-start >= n*size {
		dst = dst[:start+n*size] // every byte is written below
	} else {
		dst = append(dst, make([]byte, n*size)...)
	}
	out := dst[start:]
	switch size {
	case 4:
		p0, p1, p2, p3 := out[:n], out[n:2*n], out[2*n:3*n], out[3*n:4*n]
		for i := range n {
			v := x[4*i : 4*i+4 : 4*i+4]
			p0[i], p1[i], p2[i], p3[i] = v[0], v[1], v[2], v[3]
		}
	case 8:
		p := [8][]byte{}
		for k := range p {
			p[k] = out[k*n : (k+1)*n : (k+1)*n]
		}
		for i := range n {
			v := binary.LittleEndian.Uint64(x[8*i:])
			p[0][i], p[1][i], p[2][i], p[3][i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			p[4][i], p[5][i], p[6][i], p[7][i] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		}
	default:
		for k := range size {
			plane := out[k*n : (k+1)*n]
			for i := range plane {
				plane[i] = x[i*size+k]
			}
		}
	}
	return dst
}

// UndoPlanes turns coded (n values in byte planes, XORed) back into
// values, XORing with base as appendPlanes did; it writes into out.
func UndoPlanes(out, coded, base []byte, size int) {
	n := len(coded) / size
	out = out[:n*size]
	unplane(out, coded, size)
	xorInto(out, base)
}

// unplane writes coded's values (byte planes, as appendPlaned lays them
// out) into out.
func unplane(out, coded []byte, size int) {
	n := len(coded) / size
	switch size {
	case 4:
		p0, p1, p2, p3 := coded[:n], coded[n:2*n], coded[2*n:3*n], coded[3*n:4*n]
		for i := range n {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(p0[i])|uint32(p1[i])<<8|uint32(p2[i])<<16|uint32(p3[i])<<24)
		}
	case 8:
		p := [8][]byte{}
		for k := range p {
			p[k] = coded[k*n : (k+1)*n : (k+1)*n]
		}
		for i := range n {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(p[0][i])|uint64(p[1][i])<<8|uint64(p[2][i])<<16|uint64(p[3][i])<<24|
				uint64(p[4][i])<<32|uint64(p[5][i])<<40|uint64(p[6][i])<<48|uint64(p[7][i])<<56)
		}
	default:
		for k := range size {
			plane := coded[k*n : (k+1)*n]
			for i, b := range plane {
				out[i*size+k] = b
			}
		}
	}
}

// xorInto XORs base into x, over the bytes both have.
func xorInto(x, base []byte) {
	m := min(len(x), len(base))
	i := 0
	for ; i+8 <= m; i += 8 {
		binary.LittleEndian.PutUint64(x[i:], binary.LittleEndian.Uint64(x[i:])^binary.LittleEndian.Uint64(base[i:]))
	}
	for ; i < m; i++ {
		x[i] ^= base[i]
	}
}

// EntityBytes lays entity handles out as 8 little-endian bytes each.
func EntityBytes(ents []EntityID) []byte { return putEntities(make([]byte, 8*len(ents)), ents) }

// AppendEntityPlanes appends ents as AppendPlanes appends their bytes
// (EntityBytes), XORed with base's.
func AppendEntityPlanes(dst []byte, ents, base []EntityID) []byte {
	v, b := borrowScratch(8*len(ents)), borrowScratch(8*len(base))
	defer returnScratch(v)
	defer returnScratch(b)
	return AppendPlanes(dst, putEntities(*v, ents), putEntities(*b, base), 8)
}

// putEntities writes ents into b, 8 bytes each, and returns b.
func putEntities(b []byte, ents []EntityID) []byte {
	for i, e := range ents {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(e))
	}
	return b
}

// BytesEntities is entityBytes undone.
func BytesEntities(b []byte) []EntityID {
	ents := make([]EntityID, len(b)/8)
	for i := range ents {
		ents[i] = EntityID(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return ents
}

// RawValue turns the memory of one value (little-endian, laid out as fs
// says: offsets and sizes) into its wire form, as the agent's conversion
// of the Go value would: structs as maps of fields, arrays as lists,
// entities as handles.
func RawValue(fs []FieldSchema, b []byte) Value {
	fields := make([]Field, 0, len(fs))
	for i := range fs {
		fields = append(fields, Field{Name: fs[i].Name, Value: RawField(&fs[i], b, fs[i].Offset, 0)})
	}
	return MapValue(fields...)
}

// RawField reads field f at byte off of a value's raw memory (little-endian,
// as a raw column holds it) as a Value; Nil when it does not fit b.
func RawField(f *FieldSchema, b []byte, off, depth int) Value {
	if !fits(off, f.Size, len(b)) || depth > 16 {
		return Nil()
	}
	v := b[off : off+f.Size]
	switch f.Kind {
	case "bool":
		return BoolValue(len(v) > 0 && v[0] != 0)
	case "int":
		switch len(v) {
		case 1:
			return IntValue(int64(int8(v[0])))
		case 2:
			return IntValue(int64(int16(binary.LittleEndian.Uint16(v))))
		case 4:
			return IntValue(int64(int32(binary.LittleEndian.Uint32(v))))
		case 8:
			return IntValue(int64(binary.LittleEndian.Uint64(v)))
		}
	case "uint":
		switch len(v) {
		case 1:
			return UintValue(uint64(v[0]))
		case 2:
			return UintValue(uint64(binary.LittleEndian.Uint16(v)))
		case 4:
			return UintValue(uint64(binary.LittleEndian.Uint32(v)))
		case 8:
			return UintValue(binary.LittleEndian.Uint64(v))
		}
	case "float":
		switch len(v) {
		case 4:
			return Float32Value(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		case 8:
			return FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(v)))
		}
	case "entity":
		if len(v) == 8 {
			return UintValue(binary.LittleEndian.Uint64(v))
		}
	case "struct":
		fields := make([]Field, 0, min(len(f.Fields), f.Size+1))
		for i := range f.Fields {
			if !fits(f.Fields[i].Offset, 0, f.Size) {
				return Nil()
			}
			fields = append(fields, Field{Name: f.Fields[i].Name, Value: RawField(&f.Fields[i], b, off+f.Fields[i].Offset, depth+1)})
		}
		return MapValue(fields...)
	case "array":
		if !arrayFits(f) {
			return Nil()
		}
		items := make([]Value, f.Len)
		for i := range items {
			items[i] = RawField(f.Elem, b, off+i*f.Elem.Size, depth+1)
		}
		return ListValue(items...)
	}
	return Nil()
}

// fits reports whether size bytes at off lie within n bytes, without
// overflow whatever a schema claims.
func fits(off, size, n int) bool {
	return off >= 0 && size >= 0 && off <= n && size <= n-off
}

// maxZeroSizeElems bounds an array of zero-size elements a schema may
// describe: they take no bytes to claim.
const maxZeroSizeElems = 1024

// arrayFits reports whether an array's elements lie within its size
// (overflow-safe), so reading one allocates no more than its bytes pay
// for.
func arrayFits(f *FieldSchema) bool {
	if f.Elem == nil || f.Len < 0 || f.Elem.Size < 0 {
		return false
	}
	if f.Elem.Size == 0 {
		return f.Len <= maxZeroSizeElems
	}
	return f.Len <= f.Size/f.Elem.Size
}

// RawLayout reports whether values of a component with these fields can
// travel as raw memory: every field a bool, number, entity, or a struct or
// array of those, with offsets and sizes inside size.
func RawLayout(fs []FieldSchema, size int) bool {
	for i := range fs {
		if !rawOK(&fs[i], fs[i].Offset, size, 0) {
			return false
		}
	}
	return true
}

func rawOK(f *FieldSchema, off, size, depth int) bool {
	if depth > 16 || !fits(off, f.Size, size) {
		return false
	}
	switch f.Kind {
	case "bool", "entity":
		return true
	case "int", "uint":
		return f.Size == 1 || f.Size == 2 || f.Size == 4 || f.Size == 8
	case "float":
		return f.Size == 4 || f.Size == 8
	case "struct":
		for i := range f.Fields {
			if !fits(f.Fields[i].Offset, 0, f.Size) || !rawOK(&f.Fields[i], off+f.Fields[i].Offset, size, depth+1) {
				return false
			}
		}
		return true
	case "array":
		return arrayFits(f) && (f.Len == 0 || rawOK(f.Elem, off, size, depth+1))
	}
	return false
}
