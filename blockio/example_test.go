package blockio_test

import (
	"fmt"

	"github.com/ftlsim/ftlsim/blockio"
)

// A 128 KiB write of half-compressible data at the drive's first MiB.
func ExampleRequest() {
	r := blockio.Request{Op: blockio.Write, Offset: 1 << 20, Length: 128 << 10, Data: blockio.Data{CompressPct: 50}}
	fmt.Println(r.Op, r.Offset, r.Length, r.Data.CompressPct)
	// Output: write 1048576 131072 50
}
