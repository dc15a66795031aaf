package snapshot_test

import (
	"bytes"
	"fmt"

	"github.com/ftlsim/ftlsim/internal/snapshot"
)

type counter struct{ n int64 }

type machine struct {
	log   []uint32
	a, b  *counter // one object, two owners
	label string
}

// Save a graph and restore it in place into one built afresh: values
// written back, the shared object still shared and the fresh one reused.
func Example() {
	saved := &machine{log: []uint32{3, 1, 4}, label: "prepared"}
	saved.a = &counter{n: 42}
	saved.b = saved.a

	var state bytes.Buffer
	n, err := snapshot.Encode(&state, saved)
	if err != nil {
		panic(err)
	}

	fresh := &machine{a: &counter{}, b: &counter{}}
	first := fresh.a
	if err := snapshot.Decode(&state, n, fresh); err != nil {
		panic(err)
	}
	fmt.Println(fresh.log, fresh.label, fresh.a.n, fresh.a == fresh.b, fresh.a == first)
	// Output: [3 1 4] prepared 42 true true
}
