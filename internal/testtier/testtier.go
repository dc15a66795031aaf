// Package testtier splits the project's tests into two tiers.
//
// The default tier is what `go test ./...` runs: every package's tests,
// with the costly calibration and physics checks in a smaller form (a
// smaller drive, a shorter run, fewer presets) that checks the same
// behaviour and can fail, so that the whole suite finishes in a few
// minutes on a two-core machine.
//
// The long tier adds the full-size forms: the presets at their real
// capacities, the reviews' full run lengths, tens of millions of FTL
// writes. It is switched on by one environment variable:
//
//	FTLSIM_LONG=1 go test ./...
//
// A test that has a long form only calls Long first; a test whose size
// depends on the tier picks it with IsLong or Pick.
package testtier

import (
	"os"
	"strconv"
	"testing"
)

// Env is the environment variable that switches the long tier on; any
// value strconv.ParseBool reads as true does ("1", "true").
const Env = "FTLSIM_LONG"

// IsLong reports whether the long tier is on.
func IsLong() bool {
	on, err := strconv.ParseBool(os.Getenv(Env))
	return err == nil && on
}

// Long skips the calling test unless the long tier is on.
func Long(t testing.TB) {
	t.Helper()
	if !IsLong() {
		t.Skip("long tier: set " + Env + "=1 to run this test")
	}
}

// Pick returns long in the long tier and short otherwise: the size of a
// test that runs in both tiers.
func Pick[T any](short, long T) T {
	if IsLong() {
		return long
	}
	return short
}
