package protocol

import (
	"strings"
	"testing"
)

func TestCheckRejectsDeclaredLengthsBeyondTheFrame(t *testing.T) {
	cases := map[string][]byte{
		"array32 of 4G":       {0xdd, 0xff, 0xff, 0xff, 0xff},
		"map32 of 4G":         {0xdf, 0xff, 0xff, 0xff, 0xff, 0x01},
		"str32 of 4G":         {0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
		"bin32 of 4G":         {0xc6, 0xff, 0xff, 0xff, 0xff},
		"ext32 of 4G":         {0xc9, 0xff, 0xff, 0xff, 0xff, 0x01},
		"array16 short":       {0xdc, 0x00, 0x05, 0x01, 0x02},
		"fixstr short":        {0xa5, 'a', 'b'},
		"truncated float":     {0xcb, 0x00},
		"reserved code":       {0xc1},
		"empty":               {},
		"array missing items": {0x92, 0x01},
	}
	for name, b := range cases {
		if _, err := checkMsgpack(b, maxDepth, 1<<20); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	deep := []byte{}
	for range 40 {
		deep = append(deep, 0x91)
	}
	deep = append(deep, 0x00)
	if _, err := checkMsgpack(deep, maxDepth, 1<<20); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep nesting: %v", err)
	}
	// Ten thousand one-byte nils as an array: few bytes, large decode.
	many := append([]byte{0xdc, 0x27, 0x10}, make([]byte, 10000)...)
	for i := 3; i < len(many); i++ {
		many[i] = 0xc0
	}
	if _, err := checkMsgpack(many, maxDepth, 16*int64(len(many))); err == nil { // a tighter budget than Decode's
		t.Error("amplifying array accepted")
	}
}

func TestCheckAcceptsRealMessages(t *testing.T) {
	for _, m := range sampleMessages() {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		n, err := checkMsgpack(b, maxDepth, decodeBudget(len(b)))
		if err != nil || n != len(b) {
			t.Errorf("%T: n=%d of %d, %v", m, n, len(b), err)
		}
	}
}
