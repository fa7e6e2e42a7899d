package protocol

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// bodyDecoder is implemented by the messages whose bodies are decoded by
// hand straight from the frame's bytes: the large ones.
type bodyDecoder interface {
	decodeBody(r *reader) error
}

// skipRaw returns the bytes of the next value and moves past it.
func (r *reader) skipRaw() []byte {
	if r.err != nil {
		return nil
	}
	n, err := checkMsgpack(r.b[r.pos:], maxDepth, decodeBudget(len(r.b)))
	if err != nil {
		r.fail(err)
		return nil
	}
	return r.take(n)
}

// generic decodes the next value with msgpack's reflection, into v.
func (r *reader) generic(v any) {
	raw := r.skipRaw()
	if r.err == nil {
		if err := unmarshal(raw, v); err != nil {
			r.fail(err)
		}
	}
}

func (r *reader) boolean() bool {
	switch c := r.byte(); c {
	case 0xc3:
		return true
	case 0xc2, 0xc0:
		return false
	default:
		r.pos--
		r.skipRaw()
		return false
	}
}

// list reads an array header, checked against the bytes left; nil for an
// empty or nil list.
func (r *reader) list() int {
	n := r.containerLen(false)
	if n > len(r.b)-r.pos {
		r.fail(errShort)
		return 0
	}
	return n
}

func (r *reader) row() Row {
	var row Row
	for range r.containerLen(true) {
		switch r.key() {
		case "e":
			row.Entity = EntityID(r.uint())
		case "v":
			if n := r.list(); n > 0 {
				row.Values = r.values(n)
				for i := range row.Values {
					row.Values[i] = r.value(1)
				}
			}
		default:
			r.skipRaw()
		}
	}
	return row
}

func (r *reader) entities() []EntityID {
	n := r.list()
	if n == 0 {
		return nil
	}
	out := make([]EntityID, n)
	for i := range out {
		out[i] = EntityID(r.uint())
	}
	return out
}

func (r *reader) ids() []uint16 {
	n := r.list()
	if n == 0 {
		return nil
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(r.uint())
	}
	return out
}

// DecodeMsgpack reads a page with the hand decoder and its checks (a row
// per the columns), whichever way the message came: a frame whose type
// is written as a wider integer reaches here through the generic decoder.
func (p *Page) DecodeMsgpack(dec *msgpack.Decoder) error { return decodeRaw(dec, p.decodeBody) }

func (p *Page) decodeBody(r *reader) error {
	*p = Page{}
	for range r.containerLen(true) {
		switch r.key() {
		case "sub":
			p.Sub = uint32(r.uint())
		case "t":
			p.Tick = r.uint()
		case "full":
			p.Full = r.boolean()
		case "tot":
			p.Total = int(r.value(1).Int())
		case "o":
			p.Offset = int(r.value(1).Int())
		case "cols":
			p.Columns = r.ids()
		case "rows":
			if n := r.list(); n > 0 {
				p.Rows = make([]Row, n)
				for i := range p.Rows {
					p.Rows[i] = r.row()
				}
			}
		case "rm":
			p.Removed = r.entities()
		case "ord":
			p.Order = r.entities()
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return r.err
		}
	}
	if r.err == nil {
		for i := range p.Rows {
			if len(p.Rows[i].Values) != len(p.Columns) {
				return fmt.Errorf("row %d has %d values for %d columns", i, len(p.Rows[i].Values), len(p.Columns))
			}
		}
	}
	return r.err
}

// Check reports a table whose shape does not hold together: a column per
// component, a value per entity in every column.
func (t *Table) Check() error {
	if len(t.Columns) != len(t.Components) {
		return fmt.Errorf("table has %d columns for %d components", len(t.Columns), len(t.Components))
	}
	for c, col := range t.Columns {
		if len(col) != len(t.Entities) {
			return fmt.Errorf("table column %d has %d values for %d entities", c, len(col), len(t.Entities))
		}
	}
	return nil
}

func (t *Table) decodeBody(r *reader) {
	*t = Table{}
	for range r.containerLen(true) {
		switch r.key() {
		case "c":
			t.Components = r.ids()
		case "e":
			t.Entities = r.entities()
		case "v":
			if n := r.list(); n > 0 {
				t.Columns = make([][]Value, n)
				for c := range t.Columns {
					if m := r.list(); m > 0 {
						t.Columns[c] = make([]Value, m)
						for i := range t.Columns[c] {
							t.Columns[c][i] = r.value(1)
						}
					}
				}
			}
		default:
			r.skipRaw()
		}
	}
}

func (s *Snapshot) decodeBody(r *reader) error {
	*s = Snapshot{}
	for range r.containerLen(true) {
		switch r.key() {
		case "id":
			s.ID = uint32(r.uint())
		case "t":
			s.Tick = r.uint()
		case "g":
			s.Game = r.str()
		case "st":
			r.generic(&s.Stats)
		case "cs":
			r.generic(&s.Components)
		case "tb":
			if err := decodeTables(r, &s.Tables, "table"); err != nil {
				return err
			}
		case "sp":
			if err := decodeTables(r, &s.Sparse, "sparse table"); err != nil {
				return err
			}
		case "rs":
			r.generic(&s.Resources)
		default:
			r.skipRaw()
		}
		if r.err != nil {
			return r.err
		}
	}
	return r.err
}

// decodeTables reads a list of tables, each checked for shape.
func decodeTables(r *reader, into *[]Table, what string) error {
	n := r.list()
	if n <= 0 {
		return nil
	}
	*into = make([]Table, n)
	for i := range *into {
		(*into)[i].decodeBody(r)
		if r.err == nil {
			if err := (*into)[i].Check(); err != nil {
				return fmt.Errorf("snapshot %s %d: %w", what, i, err)
			}
		}
	}
	return nil
}
