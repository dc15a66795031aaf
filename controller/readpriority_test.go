package controller_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/sim"
)

// ATTO's procedure, a sequential write pass and then a sequential read
// pass of one file at QD 4, leaves the write buffer full of acknowledged
// data when the read pass starts on a drive whose flash writes slower
// than its link. Firmware that sends a die's reads before the programs
// queued on it (Firmware.ReadPriority) reads at the bound the
// configuration sets: the link's payload rate, the data path's, or the
// dies' (each page read takes its command, tR and data out on the
// channel), whichever is lower — not a whole buffer's drain later.
func TestSequentialReadAfterWritePassReachesBound(t *testing.T) {
	for _, tc := range []struct {
		drive string
		first bool // Firmware.ReadPriority
	}{
		// 8 dies write 94 MB/s: the 32 MiB buffer takes ~0.35 s to drain.
		{"m4-64", true},
		// Without read priority the first read waits for all of it.
		{"m4-64", false},
		// 32 dies keep up with the data path on a fresh drive: no backlog.
		{"m4-256", true},
	} {
		t.Run(fmt.Sprintf("%s/read_priority=%v", tc.drive, tc.first), func(t *testing.T) {
			cfg, err := controller.Preset(tc.drive)
			require.NoError(t, err)
			cfg = cfg.Resized(32<<30, cfg.OPPercent) // the dies are kept
			cfg.Firmware.ReadPriority = tc.first
			d, err := controller.New(cfg)
			require.NoError(t, err)
			e := sim.New(d)
			e.SecureErase()
			w := runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "256m", "iodepth": "4"})
			r := runJob(t, e, map[string]string{"rw": "read", "bs": "128k", "size": "256m", "iodepth": "4"})

			c := d.Config()
			g := c.NAND.Geometry
			bt := nand.BusTimesOf(c.NAND, 1, g.PageBytes)
			// A die reads a page in its commands, tR and data out; a
			// channel carries its dies' commands and data.
			perDie := float64(g.PageBytes) / float64(bt.ReadCmdNs+c.NAND.Timing.ReadNs+bt.ReadOutNs) * 1e9
			perChan := float64(g.PageBytes) / float64(bt.ReadCmdNs+bt.ReadOutNs) * 1e9
			flash := min(perDie*float64(g.Dies()), perChan*float64(g.Channels))
			bound := min(float64(c.Host.LinkMBps)*1e6, flash)
			if c.Firmware.DatapathReadMBps > 0 {
				bound = min(bound, float64(c.Firmware.DatapathReadMBps)*1e6)
			}
			t.Logf("%s: write pass %.1f MB/s, read pass %.1f MB/s; bound %.1f MB/s (link %d, data path %d, flash %.0f)",
				tc.drive, w.Write.BWBytes/1e6, r.Read.BWBytes/1e6, bound/1e6, c.Host.LinkMBps, c.Firmware.DatapathReadMBps, flash/1e6)
			require.LessOrEqual(t, r.Read.BWBytes, bound*1.001)
			// The buffer's drain at the write pass's rate, which the read
			// pass waits for when its reads queue behind the programs.
			drain := float64(c.Firmware.WriteBuffer) / w.Write.BWBytes
			behind := 256 << 20 / (float64(256<<20)/bound + drain)
			if tc.first {
				require.Greater(t, r.Read.BWBytes, 0.9*bound)
			} else {
				require.InEpsilon(t, behind, r.Read.BWBytes, 0.1, "the read pass waits for the buffer to drain")
			}
		})
	}
}

// Read-ahead prefetches whole flash pages: a sequential stream of
// requests smaller than a page senses each page once (an array read a
// page, the rest of it moved out of the page register), whatever the
// request size.
func TestReadAheadSensesEachPageOnce(t *testing.T) {
	for _, bs := range []string{"512", "4k", "8k", "64k"} {
		t.Run(bs, func(t *testing.T) {
			cfg, err := controller.Preset("m4-256")
			require.NoError(t, err)
			cfg = cfg.Resized(32<<30, cfg.OPPercent)
			d, err := controller.New(cfg)
			require.NoError(t, err)
			e := sim.New(d)
			e.SecureErase()
			const size = 16 << 20
			runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "16m"})
			require.NoError(t, e.Idle(1e9)) // everything on flash
			c0 := d.Counters()
			runJob(t, e, map[string]string{"rw": "read", "bs": bs, "size": "16m"})
			c1 := d.Counters()
			var sensed int64
			for i := range c1.Flash {
				sensed += c1.Flash[i].ReadPages - c0.Flash[i].ReadPages
			}
			pages := int64(size / d.Config().NAND.Geometry.PageBytes)
			require.GreaterOrEqual(t, sensed, pages, "array reads")
			require.LessOrEqual(t, sensed, pages+2, "array reads")
		})
	}
}
