package sim_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// A drive restored from a saved state — into a drive built afresh, with
// another seed — is the drive that was saved: it saves the same bytes, and
// the same job on both gives the same result.
func TestStateRestored(t *testing.T) {
	m4 := func(edit func(*controller.Config)) func(seed uint64) *controller.Controller {
		return func(seed uint64) *controller.Controller {
			cfg, err := controller.Preset("m4-64")
			require.NoError(t, err)
			r, err := cfg.Resolve()
			require.NoError(t, err)
			cfg = r.Config.Resized(8<<30, r.SparePercent)
			cfg.Seed = seed
			edit(&cfg)
			d, err := controller.New(cfg)
			require.NoError(t, err)
			require.NoError(t, d.PreWear(1.5)) // past its rated cycles: reads retry
			return d
		}
	}
	torture := workload.Precondition{Kind: workload.PreconditionTorture, TortureNs: 5 * sim.Second}
	cases := []struct {
		name  string
		drive func(seed uint64) *controller.Controller
		pre   workload.Precondition
		job   []string
		check func(*testing.T, sim.Device) // the run did what the case is about
	}{
		{"randomised GC policy", func(seed uint64) *controller.Controller {
			return twoDies(t, func(c *controller.Config) { c.Firmware.GCPolicy, c.Seed = "d-choices:4", seed })
		}, torture, []string{"rw", "randrw", "bssplit", "4k/50:16k/50", "random_distribution", "pareto:0.3"},
			func(t *testing.T, d sim.Device) { require.Positive(t, d.GCCopiedUnits) }},
		{"compression, dedupe, RAISE, mapping cache, TRIM backlog", func(seed uint64) *controller.Controller {
			return smallDrive(t, func(c *controller.Config) {
				fw := &c.Firmware
				fw.Compression, fw.CompressionSlot, fw.RaiseStripe = true, 1024, 8
				fw.MapCache, fw.MapMissNs, fw.TrimBacklog = 2<<20, 20000, 1<<30
				c.Seed = seed
			})
		}, torture, []string{"rw", "randwrite", "bssplit", "4k/50:16k/50", "buffer_compress_percentage", "30", "dedupe_percentage", "5"},
			func(t *testing.T, d sim.Device) {
				require.Positive(t, d.DedupedUnits)
				require.Positive(t, d.MapReads)
				require.Positive(t, d.ParityBytes)
			}},
		{"read errors on worn flash, data kept, a power cut", m4(func(c *controller.Config) {
			c.Firmware.ReadErrors, c.NAND.TrackData = true, true
			rel := &c.NAND.Reliability
			for _, x := range []*float64{&rel.FreshRBER, &rel.RatedRBER, &rel.RetentionRBER, &rel.DisturbRBER} {
				*x = min(0.1, *x*100) // as --faults=rber_scale=100: errors show in a short run
			}
		}), workload.Precondition{Kind: workload.PreconditionFill}, []string{"rw", "randrw", "power_loss", "2s", "verify", "crc32c"},
			func(t *testing.T, d sim.Device) {
				require.Positive(t, d.ReadRetries)
				require.Positive(t, d.PowerLosses)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := sim.New(c.drive(1))
			a.SecureErase()
			require.NoError(t, a.Precondition(c.pre))
			require.NoError(t, a.Controller().Bake(2*365*24*3600*sim.Second)) // data two years old: worn flash needs retries
			var saved bytes.Buffer
			n, err := a.SaveState(&saved)
			require.NoError(t, err)
			require.Equal(t, int64(saved.Len()), n)

			b := sim.New(c.drive(2))
			require.NoError(t, b.LoadState(bytes.NewReader(saved.Bytes()), n))
			require.Equal(t, a.Now(), b.Now())
			var again bytes.Buffer
			_, err = b.SaveState(&again)
			require.NoError(t, err)
			require.True(t, bytes.Equal(saved.Bytes(), again.Bytes()), "the restored drive saves other bytes")

			opts := append([]string{"iodepth", "16", "runtime", "5", "time_based", "1"}, c.job...)
			ra, err := a.RunJob(job(t, opts...), sim.Hooks{})
			require.NoError(t, err)
			rb, err := b.RunJob(job(t, opts...), sim.Hooks{})
			require.NoError(t, err)
			require.Equal(t, ra, rb)
			c.check(t, ra.Device)
		})
	}
}

// A state does not fit a drive built from another description: here
// another GC policy, whose object the state cannot be restored into.
func TestStateRefusesAnotherPolicy(t *testing.T) {
	a := sim.New(smallDrive(t, nil))
	a.SecureErase()
	var saved bytes.Buffer
	n, err := a.SaveState(&saved)
	require.NoError(t, err)
	b := sim.New(smallDrive(t, func(c *controller.Config) { c.Firmware.GCPolicy = "fifo" }))
	err = b.LoadState(&saved, n)
	require.ErrorContains(t, err, "ftl.Greedy")
	require.ErrorContains(t, err, "ftl.FIFO")
}
