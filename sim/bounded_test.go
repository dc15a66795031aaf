package sim_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
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

// TestLibraryRefusesMisuse: the library's entry points return an error
// naming the misuse — never a runtime panic — for a zero or unresolved
// job, a missing source or drive, and a state saved from another drive.
func TestLibraryRefusesMisuse(t *testing.T) {
	fresh := func() *sim.Engine {
		e := sim.New(smallDrive(t, nil))
		e.SecureErase()
		return e
	}
	noBS := workload.NewJob("nobs")
	noBS.BS = nil
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"zero Job", func() error { _, err := fresh().RunJob(&workload.Job{}, sim.Hooks{}); return err }, "no block size"},
		{"nil Job", func() error { _, err := fresh().RunJob(nil, sim.Hooks{}); return err }, "nil job"},
		{"Job.BS nil", func() error { _, err := fresh().RunJob(noBS, sim.Hooks{}); return err }, "no block size"},
		{"unresolved job", func() error {
			_, err := fresh().Run(workload.NewGenerator(workload.NewJob("u")), sim.Options{QueueDepth: 1, RuntimeNs: sim.Second})
			return err
		}, "not resolved"},
		{"nil source", func() error { _, err := fresh().Run(nil, sim.Options{QueueDepth: 1}); return err }, "no source"},
		{"NaN TimeScale", func() error {
			_, err := fresh().Run(workload.NewGenerator(job(t)), sim.Options{TimeScale: math.NaN()})
			return err
		}, "TimeScale"},
		{"sim.New(nil)", func() error { _, err := sim.New(nil).RunJob(workload.NewJob("x"), sim.Hooks{}); return err }, "no drive"},
		{"zero Engine Run", func() error {
			var e sim.Engine
			_, err := e.Run(workload.NewGenerator(job(t)), sim.Options{})
			return err
		}, "no drive"},
		{"zero Engine Idle", func() error { var e sim.Engine; return e.Idle(1) }, "no drive"},
		{"zero Engine SaveState", func() error { var e sim.Engine; _, err := e.SaveState(io.Discard); return err }, "no drive"},
		{"negative Idle", func() error { return fresh().Idle(-1) }, "Idle(-1)"},
		{"ftl.New(nil)", func() error { _, err := ftl.New(nil, ftl.Config{}); return err }, "nil device"},
		{"LoadState into a larger drive", func() error {
			var b bytes.Buffer
			n, err := fresh().SaveState(&b)
			require.NoError(t, err)
			e := sim.New(smallDrive(t, func(c *controller.Config) { c.Capacity = 8 << 30 }))
			e.SecureErase()
			return e.LoadState(&b, n)
		}, "another drive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = c.run() })
			require.ErrorContains(t, err, c.want)
		})
	}
	require.PanicsWithValue(t, sim.ErrNoDrive.Error(), func() { new(sim.Engine).SecureErase() }, "documented: a sim: message")
}

// TestLoadStateRefusesCorruptContent: a state whose bytes were changed
// after it was written (a checksum over them would still hold) is refused
// with an error, or loads into a drive that runs: never a panic. A
// mapping past the flash is refused as inconsistent.
func TestLoadStateRefusesCorruptContent(t *testing.T) {
	a := sim.New(smallDrive(t, nil))
	a.SecureErase()
	_, err := a.RunJob(job(t, "rw", "randwrite", "number_ios", "2000"), sim.Hooks{})
	require.NoError(t, err)
	var saved bytes.Buffer
	n, err := a.SaveState(&saved)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(23, 23))
	refused := 0
	for range 40 {
		b := bytes.Clone(saved.Bytes())
		at := 32 + rng.IntN(len(b)-40) // past the layout hash
		for k := range 8 {
			b[at+k] ^= byte(rng.Uint32() | 1)
		}
		e := sim.New(smallDrive(t, nil))
		require.NotPanics(t, func() {
			if err := e.LoadState(bytes.NewReader(b), n); err != nil {
				refused++
				return
			}
			_, _ = e.RunJob(job(t, "rw", "randrw", "number_ios", "200"), sim.Hooks{})
		}, "corruption at byte %d", at)
	}
	t.Logf("%d of 40 corrupt states refused", refused)
}

// TestLoadStateRefusesAMappingPastTheFlash: a state whose mapping table
// sends a logical unit past the flash — valid bytes, impossible content —
// is refused as inconsistent when it is loaded, not at run time.
func TestLoadStateRefusesAMappingPastTheFlash(t *testing.T) {
	a := sim.New(smallDrive(t, nil))
	a.SecureErase()
	var saved bytes.Buffer
	n, err := a.SaveState(&saved)
	require.NoError(t, err)
	b := saved.Bytes()
	// The mapping of the secure-erased drive: its user units, all
	// unmapped, in a row (the table stores each entry complemented, so
	// unmapped is 0); the middle one is set past the flash.
	units := int(a.Controller().CapacityBytes() / a.Controller().UnitBytes())
	found := 0
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] == 0 {
			j++
		}
		if j-i == 4*units {
			found++
			binary.LittleEndian.PutUint32(b[i+2*units:], ^uint32(0x7ffffff0))
		}
		i = j + 1
	}
	require.Equal(t, 1, found, "one array of %d unmapped units", units)
	e := sim.New(smallDrive(t, nil))
	err = e.LoadState(bytes.NewReader(b), n)
	require.ErrorIs(t, err, sim.ErrCorruptState)
	require.ErrorContains(t, err, "past the device")
}

// FuzzLoadCorruptState changes a saved drive state's bytes — as a file
// whose checksum was recomputed over them would — and loads it: the load
// is refused with an error, or the drive runs a short job; never a panic.
func FuzzLoadCorruptState(f *testing.F) {
	tiny := func(t testing.TB) *controller.Controller {
		return twoDies(t, nil)
	}
	a := sim.New(tiny(f))
	a.SecureErase()
	_, err := a.RunJob(job(f, "rw", "randwrite", "number_ios", "5000"), sim.Hooks{})
	require.NoError(f, err)
	var saved bytes.Buffer
	n, err := a.SaveState(&saved)
	require.NoError(f, err)
	f.Add(uint32(40), uint64(1))
	f.Add(uint32(n/2), uint64(0x7ffffff0))
	f.Add(uint32(n-8), ^uint64(0))
	f.Fuzz(func(t *testing.T, at uint32, x uint64) {
		b := bytes.Clone(saved.Bytes())
		pos := 32 + int(at)%(len(b)-40) // past the layout hash
		binary.LittleEndian.PutUint64(b[pos:], binary.LittleEndian.Uint64(b[pos:])^x)
		e := sim.New(tiny(t))
		if err := e.LoadState(bytes.NewReader(b), n); err != nil {
			return
		}
		_, _ = e.RunJob(job(t, "rw", "randrw", "number_ios", "100"), sim.Hooks{})
	})
}

// TestSeriesBoundStopsTheRun: a run whose series outgrows
// Options.MaxStoredIntervals — think times that make each interval unlike
// the one before — stops with ErrTooLarge instead of growing on.
func TestSeriesBoundStopsTheRun(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	j := job(t, "rw", "randwrite", "number_ios", "100000", "thinktime", "1500000")
	require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
	o := sim.JobOptions(j)
	o.MaxStoredIntervals = 100
	_, err := e.Run(workload.NewGenerator(j), o)
	require.ErrorIs(t, err, sim.ErrTooLarge)
	o.MaxStoredIntervals = 0
	j = job(t, "rw", "randwrite", "number_ios", "30", "thinktime", "1500000")
	require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
	r, err := e.Run(workload.NewGenerator(j), o)
	require.NoError(t, err)
	require.Greater(t, r.Intervals.Stored(), 30, "each think time's intervals are unlike the last")
}
