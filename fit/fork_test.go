package fit

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// smallDrive is bp4-240 shrunk to 8 GiB with its spare area.
func smallDrive(t *testing.T) controller.Config {
	t.Helper()
	cfg, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	return r.Config.Resized(8<<30, r.SparePercent)
}

// A procedure forked from the prepared drive gives, on the drive it was
// prepared with, exactly the figures of a whole run; on a drive with
// other costs and collection values, the figures of a whole run on that
// drive but for what the times the preparation booked change; and the
// drive is prepared once for both.
func TestForkedPreparation(t *testing.T) {
	ctx := context.Background()
	base := smallDrive(t)
	for _, p := range []stagedProcedure{
		&scenario{name: "consistency", over: map[string]string{"time": "20s"}},
	} {
		t.Run(p.Key(), func(t *testing.T) {
			pc := &prepCache{base: base, limit: 4, m: map[string]*prepEntry{}}
			whole, err := p.Run(ctx, base)
			require.NoError(t, err)
			forked, err := runProcedure(ctx, pc, p, base)
			require.NoError(t, err)
			require.Equal(t, whole, forked, "the base drive forked is the base drive")

			other := base
			fw := &other.Firmware
			fw.WriteCommandNs, fw.ReadCommandNs, fw.GCStreams, fw.GCPacePercent = fw.WriteCommandNs*3/2, fw.ReadCommandNs/2, fw.GCStreams+2, 250
			wholeOther, err := p.Run(ctx, other)
			require.NoError(t, err)
			forkedOther, err := runProcedure(ctx, pc, p, other)
			require.NoError(t, err)
			made, restored := pc.counts()
			require.Equal(t, 1, made, "one preparation for both drives")
			require.Equal(t, 2, restored)
			moved := 0
			for k, w := range wholeOther {
				g, ok := forkedOther[k]
				require.True(t, ok, k)
				if d := math.Abs(g-w) / math.Max(math.Abs(w), 1); d > 0.01 {
					t.Errorf("%s: forked %g, prepared afresh %g (%.1f %%)", k, g, w, 100*d)
				}
				if whole[k] != w {
					moved++
				}
			}
			require.Positive(t, moved, "the other drive measures otherwise")
		})
	}
}

// A scenario that measures before a TRIM forks the drive there for every
// evaluation that differs only in what acts on a TRIM (trim_backlog):
// the figures are those of the whole run on that drive, to the last
// digit, and the steps before the TRIM run once for both drives.
func TestForkedBeforeTrim(t *testing.T) {
	ctx := context.Background()
	cfg, err := controller.Preset("atlas-240")
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	base := r.Config.Resized(8<<30, r.SparePercent)
	p := &scenario{name: "trim-validation", over: map[string]string{"torture_time": "10s", "measure_time": "5s"}}
	st, err := p.stages()
	require.NoError(t, err)
	require.NotNil(t, st.head, "the TRIM validation measures before its TRIM")

	pc := &prepCache{base: base, limit: 4, m: map[string]*prepEntry{}}
	other := base
	other.Firmware.TrimBacklog = 256 << 20 // most of the TRIM dropped
	var after []float64
	for _, d := range []controller.Config{base, other} {
		whole, err := p.Run(ctx, d)
		require.NoError(t, err)
		forked, err := runProcedure(ctx, pc, p, d)
		require.NoError(t, err)
		require.Equal(t, whole, forked, "trim_backlog %v", d.Firmware.TrimBacklog)
		after = append(after, whole["after-trim: write MB/s"])
	}
	require.NotEqual(t, after[0], after[1], "the backlog moves the figure after the TRIM")
	made, restored := pc.counts()
	require.Equal(t, 1, made, "the steps before the TRIM run once")
	require.Equal(t, 2, restored)

	// Another cost runs them again (the torture depends on it).
	costly := other
	costly.Firmware.CompressOutMBps /= 2
	_, err = runProcedure(ctx, pc, p, costly)
	require.NoError(t, err)
	made, _ = pc.counts()
	require.Equal(t, 2, made)
}
