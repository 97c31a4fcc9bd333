package token

import (
	"runtime"
	"testing"
)

// TestStatePool checks that the pool hands back the states it keeps, even
// after a collection, and keeps no more than its capacity.
func TestStatePool(t *testing.T) {
	p := statePool{free: make(chan *state, 2)}
	a, b, c := p.get(), p.get(), p.get()
	if a == b || b == c || a == c {
		t.Fatal("an empty pool handed out the same state twice")
	}
	p.put(a)
	p.put(b)
	p.put(c) // beyond the capacity: dropped
	runtime.GC()
	got := map[*state]bool{p.get(): true, p.get(): true}
	if !got[a] || !got[b] {
		t.Errorf("after a collection the pool gave back %v, want %p and %p", got, a, b)
	}
	if d := p.get(); d == a || d == b || d == c {
		t.Errorf("the pool kept more states than its capacity")
	}
}
