package sim_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
)

// Tests that a run stays bounded whatever its options ask: a rate the
// drive cannot reach, idle time of any length.

// maxOutstanding is the most requests in flight at once among cs.
func maxOutstanding(cs []sim.Completion) int {
	type edge struct {
		at int64
		d  int
	}
	es := make([]edge, 0, 2*len(cs))
	for _, c := range cs {
		es = append(es, edge{c.IssuedNs, 1}, edge{c.DoneNs, -1})
	}
	slices.SortFunc(es, func(a, b edge) int {
		if a.at != b.at {
			return int(min(max(a.at-b.at, -1), 1))
		}
		return a.d - b.d // a completion frees its slot before an issue at the same time takes it
	})
	n, most := 0, 0
	for _, e := range es {
		n += e.d
		most = max(most, n)
	}
	return most
}

// TestRateIsACeiling: a paced job (fio's rate, rate_iops) keeps at most
// iodepth I/Os outstanding and stops at its runtime however far the drive
// falls short of the rate, and says it fell short; a rate the drive
// reaches is kept to.
func TestRateIsACeiling(t *testing.T) {
	for _, tc := range []struct {
		name, key, rate string
		depth           int
		short           bool
		iops            float64 // expected, when the rate is reached
	}{
		{"10G at QD4", "rate", "10g", 4, true, 0},
		{"1G at QD1", "rate", "1g", 1, true, 0},
		{"1M at QD4", "rate", "1m", 4, false, (1 << 20) / 4096},
		{"1000 IOPS at QD8", "rate_iops", "1000", 8, false, 1000},
		{"10M IOPS at QD2", "rate_iops", "10000000", 2, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := sim.New(smallDrive(t, nil))
			e.SecureErase()
			var cs []sim.Completion
			r, err := e.RunJob(job(t, "rw", "randwrite", "bs", "4k", "iodepth", itoa(tc.depth), "runtime", "1", "time_based", "1", tc.key, tc.rate),
				sim.Hooks{OnComplete: func(c sim.Completion) { cs = append(cs, c) }})
			require.NoError(t, err)
			require.LessOrEqual(t, maxOutstanding(cs), tc.depth, "never more than iodepth outstanding")
			require.Equal(t, r.Issued, int64(len(cs)), "everything issued completed")
			require.LessOrEqual(t, r.EndNs-r.StartNs, sim.Second+10_000_000, "the runtime is honoured")
			require.Equal(t, tc.short, r.RateNotReached != "", "RateNotReached: %q", r.RateNotReached)
			if !tc.short {
				require.InEpsilon(t, tc.iops, r.Write.IOPS, 0.01)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
