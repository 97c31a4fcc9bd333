package measure

import (
	"runtime"
	"sync"
)

// parallel calls f(i, scratch) for i in [0, n) on up to GOMAXPROCS
// goroutines; each goroutine has its own scratch buffer. A panic in f is
// raised again in the caller's goroutine once the others have stopped, so
// that the caller's recover (serve's guard of its tools) sees it instead
// of the process ending.
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
	var once sync.Once
	var panicked any
	stop := make(chan struct{})
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() { panicked = v; close(stop) })
				}
			}()
			var scratch []byte
			for i := range next {
				f(i, &scratch)
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
