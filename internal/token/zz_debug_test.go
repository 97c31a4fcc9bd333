package token

import ("testing";"fmt")

func TestZZStats(t *testing.T) {
	whole, _ := benchInputs(&testing.B{})
	sp := o200kCounter().split
	st := new(state)
	c := o200kCounter()
	for pass := 0; pass < 3; pass++ {
	miss, long, long30 := 0, 0, 0
	for p := 0; p < len(whole); {
		e := sp.next(whole, p)
		piece := whole[p:e]
		if len(piece) >= 2 && len(piece) <= shortMax {
			k0, k1 := packShort(piece)
			h := (k0 ^ k1*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
			set := st.short[h>>(64-shortBits)&^1:]
			if !(set[0].k0 == k0 && set[0].k1&^(0xf<<60) == k1) && !(set[1].k0 == k0 && set[1].k1&^(0xf<<60) == k1) { miss++ }
		} else if len(piece) > shortMax { long++; if len(piece) > 30 {long30++} }
		c.pieceCount(piece, st)
		p = e
	}
	fmt.Println("miss", miss, "long", long, long30)
	}
}
