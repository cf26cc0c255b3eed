package reproduce

import (
	"fmt"
	"io"
	"sync"

	"github.com/pkg/errors"
)

// forEachProblem runs fn(i, log) for each PAutomaC problem of problems on
// jobs goroutines (at least one). fn writes its result into a slot of its
// own and reports through log, which serialises the lines on w. The first
// error in problem order is returned, naming the problem.
func forEachProblem(problems []int, jobs int, fn func(i int, log func(format string, args ...any)) error, w io.Writer) error {
	errs := make([]error, len(problems))
	var mu sync.Mutex
	log := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format, args...)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i, log); err != nil {
					errs[i] = errors.Wrapf(err, "PAutomaC problem %d", problems[i])
				}
			}
		}()
	}
	for i := range problems {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
