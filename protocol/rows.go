package protocol

import "github.com/vmihailenco/msgpack/v5"

// Rows and tables are most of the bytes of pages and snapshots: they have
// their own hand-written codecs (see wire.go). They write exactly what the
// generic encoder would, so a client in another language sees plain maps.

var (
	_ msgpack.CustomEncoder = (*Page)(nil)
	_ msgpack.CustomEncoder = (*Row)(nil)
	_ msgpack.CustomDecoder = (*Row)(nil)
	_ msgpack.CustomEncoder = (*Table)(nil)
	_ msgpack.CustomDecoder = (*Table)(nil)
)

func appendRow(b []byte, row *Row) []byte {
	b = append(b, 0x82, 0xa1, 'e')
	b = appendUint(b, uint64(row.Entity))
	b = append(b, 0xa1, 'v')
	b = appendArrayLen(b, len(row.Values))
	for i := range row.Values {
		b = appendValue(b, &row.Values[i])
	}
	return b
}

// EncodeMsgpack writes the row as {e: entity, v: [values]}.
func (row *Row) EncodeMsgpack(enc *msgpack.Encoder) error {
	return writeAppended(enc, func(b []byte) []byte { return appendRow(b, row) })
}

// DecodeMsgpack reads a row, skipping keys it does not know.
func (row *Row) DecodeMsgpack(dec *msgpack.Decoder) error {
	return decodeRaw(dec, func(r *reader) error {
		*row = r.row()
		return nil
	})
}

// EncodeMsgpack writes the table as {c: [ids], e: [entities], v: [[values]]},
// handing the writer 64 KiB at a time.
func (t *Table) EncodeMsgpack(enc *msgpack.Encoder) error {
	p := scratch.Get().(*[]byte)
	defer scratch.Put(p)
	b := (*p)[:0]
	w := enc.Writer()
	var err error
	flush := func() {
		if len(b) >= 64<<10 && err == nil {
			_, err = w.Write(b)
			b = b[:0]
		}
	}
	b = append(b, 0x83, 0xa1, 'c')
	b = appendArrayLen(b, len(t.Components))
	for _, c := range t.Components {
		b = appendUint(b, uint64(c))
	}
	b = append(b, 0xa1, 'e')
	b = appendArrayLen(b, len(t.Entities))
	for _, e := range t.Entities {
		b = appendUint(b, uint64(e))
		flush()
	}
	b = append(b, 0xa1, 'v')
	b = appendArrayLen(b, len(t.Columns))
	for _, col := range t.Columns {
		b = appendArrayLen(b, len(col))
		for i := range col {
			b = appendValue(b, &col[i])
			flush()
		}
	}
	if err == nil {
		_, err = w.Write(b)
	}
	*p = b[:0]
	return err
}

// EncodeMsgpack writes the page by hand, byte for byte what the generic
// encoder writes for its struct tags, 64 KiB at a time.
func (pg *Page) EncodeMsgpack(enc *msgpack.Encoder) error {
	p := scratch.Get().(*[]byte)
	defer scratch.Put(p)
	b := (*p)[:0]
	n := 5 // sub t tot o cols
	if pg.Full {
		n++
	}
	if len(pg.Rows) > 0 {
		n++
	}
	if len(pg.Removed) > 0 {
		n++
	}
	if len(pg.Order) > 0 {
		n++
	}
	b = appendMapLen(b, n)
	b = appendUint(append(b, 0xa3, 's', 'u', 'b'), uint64(pg.Sub))
	b = appendUint(append(b, 0xa1, 't'), pg.Tick)
	if pg.Full {
		b = append(b, 0xa4, 'f', 'u', 'l', 'l', 0xc3)
	}
	b = appendInt(append(b, 0xa3, 't', 'o', 't'), int64(pg.Total))
	b = appendInt(append(b, 0xa1, 'o'), int64(pg.Offset))
	b = append(b, 0xa4, 'c', 'o', 'l', 's')
	if pg.Columns == nil {
		b = append(b, 0xc0)
	} else {
		b = appendArrayLen(b, len(pg.Columns))
		for _, c := range pg.Columns {
			b = appendUint(b, uint64(c))
		}
	}
	w := enc.Writer()
	if len(pg.Rows) > 0 {
		b = appendArrayLen(append(b, 0xa4, 'r', 'o', 'w', 's'), len(pg.Rows))
		for i := range pg.Rows {
			b = appendRow(b, &pg.Rows[i])
			if len(b) >= 64<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
	}
	if len(pg.Removed) > 0 {
		b = appendArrayLen(append(b, 0xa2, 'r', 'm'), len(pg.Removed))
		for _, e := range pg.Removed {
			b = appendUint(b, uint64(e))
		}
	}
	if len(pg.Order) > 0 {
		b = appendArrayLen(append(b, 0xa3, 'o', 'r', 'd'), len(pg.Order))
		for _, e := range pg.Order {
			b = appendUint(b, uint64(e))
		}
	}
	_, err := w.Write(b)
	*p = b[:0]
	return err
}

// DecodeMsgpack reads a table, skipping keys it does not know.
func (t *Table) DecodeMsgpack(dec *msgpack.Decoder) error {
	return decodeRaw(dec, func(r *reader) error {
		t.decodeBody(r)
		if r.err != nil {
			return r.err
		}
		return t.Check()
	})
}
