package measure

import (
	"runtime"
	"sync"
)

// parallel calls f(i, scratch) for i in [0, n) on up to GOMAXPROCS
// goroutines; each goroutine has its own scratch buffer.
func parallel(n int, f func(i int, scratch *[]byte)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		var scratch []byte
		for i := 0; i < n; i++ {
			f(i, &scratch)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []byte
			for i := range next {
				f(i, &scratch)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
