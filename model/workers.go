package model

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workerCount is the number of goroutines a worker count of n means: n itself
// when positive, GOMAXPROCS otherwise.
func workerCount(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// ForEach calls do(i) for every i in [0, n) on up to workerCount(workers)
// goroutines, the indices handed out in increasing order. It returns the
// error of the lowest index that failed, as a loop stopping at its first
// error would, and starts no index above a failed one. do must write only
// to what index i owns, so that the results do not depend on the number
// of workers.
func ForEach(n, workers int, do func(i int) error) error {
	w := min(workerCount(workers), n)
	if w <= 1 {
		for i := 0; i < n; i++ {
			if err := do(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Int64
	failed.Store(int64(n))
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || int64(i) > failed.Load() {
					return
				}
				if errs[i] = do(i); errs[i] != nil {
					for {
						f := failed.Load()
						if int64(i) >= f || failed.CompareAndSwap(f, int64(i)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
