package workload

import (
	"github.com/ftlsim/ftlsim/blockio"
)

// Item is one request with its arrival time.
type Item struct {
	blockio.Request
	// At is the arrival time in ns for open-loop (timestamped) sources;
	// closed-loop sources leave it 0 and the engine issues the request as
	// soon as a queue slot is free.
	At int64
	// Verify marks a read of the verify phase: the engine checks that
	// every unit it reads holds Expect, the token of the source's last
	// write there (see Verifier), or with Expect 0 any written data.
	Verify bool
	Expect uint32
}

// Source produces requests in order. Next fills it and reports false when
// the source is exhausted. Implementations must not allocate per request.
// A source that can fail (a trace with a malformed line) also has an
// Err() error method, which the engine checks when Next reports false.
type Source interface {
	Next(it *Item) bool
}

// Waiter is a Source whose next request may have to wait for requests in
// flight (a zonemode=zbd job: fio's zone locks). When Waits reports true
// the engine reads the source no further ahead than it issues, tells it
// of each of its requests the drive completes (or fails, or a power cut
// aborts) with Completed and, when Next reports false with Stalled true,
// asks again once a request of any such source completes.
type Waiter interface {
	Waits() bool
	Stalled() bool
	Completed(it *Item)
}
