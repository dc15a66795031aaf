package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConsistencyShowsPlateauCliffAndSteadyState runs the example's quick
// mode and checks what the reviews read from the chart: a fresh plateau,
// a cliff once the spare area is written, a steady state well below the
// plateau that the flash's program rate and the write amplification
// explain, and a clearly higher steady state with 25 % spare area.
func TestConsistencyShowsPlateauCliffAndSteadyState(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	o := options{drive: "generic-mlc", quick: true, seconds: 2000, out: dir}
	outs, err := run(o, &out)
	require.NoError(t, err)
	t.Log("\n" + out.String())
	require.Len(t, outs, 2)
	d, err := buildDrive(o)
	require.NoError(t, err)
	for _, oc := range outs {
		s := oc.summary
		// After the fill, the plateau writes into the flash the user data
		// does not take. Cleaning starts once a die is down to
		// gc_pace_water free groups, besides the two groups it keeps open,
		// and must keep up once all is written; the series has one-second
		// intervals.
		cfg := d.Config()
		g := cfg.NAND.Geometry
		free := float64(g.Bytes()) - float64(d.CapacityBytes())*float64(100-oc.spare)/100
		held := float64(g.Dies()*(max(cfg.Firmware.GCPaceWater, cfg.Firmware.GCLowWater)+2)*g.PlanesPerDie) * float64(g.BlockBytes())
		rate := s.FreshIOPS * 4096
		cliff := float64(s.CliffNs) / 1e9
		t.Logf("%s: cliff at %.1f s (writes at the plateau reach the pacing in %.1f s, fill the spare area in %.1f s); steady state %.0f IOPS × WA %.2f = %.0f %% of the plateau",
			oc.label, cliff, (free-held)/rate, free/rate, s.SteadyMedian, s.SteadyWA, 100*s.SteadyMedian*s.SteadyWA/s.FreshIOPS)
		require.GreaterOrEqual(t, cliff, (free-held)/rate, "%s: the plateau lasts until cleaning starts", oc.label)
		require.LessOrEqual(t, cliff, free/rate+1, "%s: the plateau ends when the spare area is written", oc.label)
		// The plateau is the dies' program rate: in steady state each host
		// unit costs WA programs, and GC's reads and erases take a little
		// of the dies' time besides.
		require.LessOrEqual(t, s.SteadyMedian*s.SteadyWA, s.FreshIOPS, oc.label)
		require.Greater(t, s.SteadyMedian*s.SteadyWA, 0.8*s.FreshIOPS, oc.label)
	}
	full, spare := outs[0].summary, outs[1].summary
	require.Less(t, full.SteadyMedian, full.FreshIOPS/3, "steady state well below the plateau")
	require.Greater(t, spare.SteadyMedian, 2*full.SteadyMedian, "25 % spare area: a clearly higher steady state")
	require.Less(t, spare.SteadyWA, full.SteadyWA)
	for i, oc := range outs {
		b, err := os.ReadFile(filepath.Join(dir, []string{"consistency-0.csv", "consistency-25.csv"}[i]))
		require.NoError(t, err)
		rows := strings.Split(strings.TrimSpace(string(b)), "\n")
		require.Len(t, rows, 1+len(oc.series), "a header and a row a second")
	}
	for _, f := range []string{"consistency-log.png", "consistency-steady-log.png", "consistency-steady-linear.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s is a PNG", f)
	}
}
