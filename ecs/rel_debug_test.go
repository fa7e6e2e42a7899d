//go:build ecsdebug

package ecs

import (
	"fmt"
	"strings"
	"testing"
)

// TestOverwrittenTargetIsCaught: a whole relation value assigned through
// a pointer zeroes its target behind the index's back; an ecsdebug build
// says so at the next Tick, naming the way to change a target.
func TestOverwrittenTargetIsCaught(t *testing.T) {
	w := NewWorld()
	home := NewRel[homeHive](w)
	hive, bee := w.Spawn(), w.Spawn()
	must(t, home.Add(bee, hive, homeHive{}))
	*NewMap[homeHive](w).Get(bee) = homeHive{Trips: 3} // the mistake
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Rel.SetTarget") {
			t.Fatalf("the overwrite: %v", r)
		}
	}()
	_ = w.Tick()
}
