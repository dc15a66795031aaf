package ftltest_test

import (
	"testing"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/ftl/ftltest"
)

// In a test of your own package, one call checks a victim policy against
// every invariant of the FTL over random mixes of operations:
//
//	func TestMyPolicy(t *testing.T) {
//		ftltest.Check(t, func() ftl.VictimPolicy { return MyPolicy{} })
//	}
func ExampleCheck() {
	var t *testing.T // your test's *testing.T
	if t != nil {
		ftltest.Check(t, func() ftl.VictimPolicy { return ftl.CostBenefit{} })
	}
}
