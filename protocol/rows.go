package protocol

import "github.com/vmihailenco/msgpack/v5"

// Rows and tables are most of the bytes of pages and snapshots: they have
// their own hand-written codecs (see wire.go). They write exactly what the
// generic encoder would, so a client in another language sees plain maps.

var (
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

// EncodeMsgpack writes the table as {c: [ids], e: [entities], v: [[values]]}.
func (t *Table) EncodeMsgpack(enc *msgpack.Encoder) error {
	return writeAppended(enc, func(b []byte) []byte {
		b = append(b, 0x83, 0xa1, 'c')
		b = appendArrayLen(b, len(t.Components))
		for _, c := range t.Components {
			b = appendUint(b, uint64(c))
		}
		b = append(b, 0xa1, 'e')
		b = appendArrayLen(b, len(t.Entities))
		for _, e := range t.Entities {
			b = appendUint(b, uint64(e))
		}
		b = append(b, 0xa1, 'v')
		b = appendArrayLen(b, len(t.Columns))
		for _, col := range t.Columns {
			b = appendArrayLen(b, len(col))
			for i := range col {
				b = appendValue(b, &col[i])
			}
		}
		return b
	})
}

// DecodeMsgpack reads a table, skipping keys it does not know.
func (t *Table) DecodeMsgpack(dec *msgpack.Decoder) error {
	return decodeRaw(dec, func(r *reader) error {
		t.decodeBody(r)
		return nil
	})
}
