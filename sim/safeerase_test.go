package sim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// TestSafeEraseOrderKeepsFlushedData cuts power during steady-state random
// writes with flushes on a drive of many dies and a large write buffer —
// where host programs are booked far ahead on other dies while collection
// erases its victims — and checks that no write a flush made durable is
// lost: a victim's erase starts only after the programs holding the newer
// copies of its data, and the programs that completed their word lines,
// have ended (controller's rest log), though no longer after every program
// booked. Right after the fill collection's write amplification is
// enormous, so the cut finds many seconds of die time booked ahead: the
// groups opened in that booked future whose programs had not started
// come back erased and free (PowerLossReport.FreedGroups), and the drive
// takes writes again after the mount (the job runs on past the cut).
func TestSafeEraseOrderKeepsFlushedData(t *testing.T) {
	cuts := []string{"2100ms"} // the cut that once left a die no room to collect
	if testtier.IsLong() {
		cuts = []string{"700ms", "1300ms", "2100ms"}
	}
	for _, cut := range cuts {
		t.Run(cut, func(t *testing.T) {
			d := smallDrive(t, func(c *controller.Config) {
				c.NAND.Geometry.Channels, c.NAND.Geometry.TargetsPerChannel, c.NAND.Geometry.DiesPerTarget = 4, 1, 2
				c.OPPercent = 7
				c.NAND.TrackData = true
				c.Firmware.GCSafeErase = true
				c.Firmware.WriteBuffer = 32 << 20
			})
			e := sim.New(d)
			e.SecureErase()
			require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
			c0 := d.Counters()
			r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "32", "fsync", "2048", "runtime", "3", "time_based", "1", "power_loss", cut), sim.Hooks{})
			require.NoError(t, err)
			require.Len(t, r.PowerLosses, 1)
			pl := r.PowerLosses[0]
			dc := d.Counters().Sub(c0)
			moved := dc.GCCopiedUnits
			t.Logf("cut at %s: %+v; GC moved %d units for %d host units", cut, pl, moved, dc.HostWriteUnits)
			require.Positive(t, moved, "collection ran")
			require.Positive(t, pl.UnstartedPages, "programs were booked past the cut")
			require.Positive(t, pl.FreedGroups, "groups opened past the cut are free again")
			require.Zero(t, pl.LostFlushedBytes, fmt.Sprintf("cut at %s: nothing a flush made durable is lost", cut))
		})
	}
}
