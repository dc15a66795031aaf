package sim_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

func TestStreamMemoryGrowsWithTheSeries(t *testing.T) {
	base := sim.StreamMemoryBytes(0)
	require.Positive(t, base)
	require.Equal(t, base+2*1000*int64(unsafe.Sizeof(sim.Interval{})), sim.StreamMemoryBytes(1000))
}

// A series longer than MaxFioSeries is left out of the JSON, with a note;
// one of MaxFioSeries intervals is kept.
func TestLongSeriesLeftOutOfTheJSON(t *testing.T) {
	for _, n := range []int{fioreport.MaxSeries, fioreport.MaxSeries + 1} {
		r := &sim.Result{Name: "long", RuntimeNs: int64(n) * sim.Second, EndNs: int64(n) * sim.Second}
		for i := range n {
			r.Intervals.Append(sim.Interval{StartNs: int64(i) * sim.Second, EndNs: int64(i+1) * sim.Second, IOPS: 1})
		}
		var b bytes.Buffer
		require.NoError(t, fioreport.WriteJSON(&b, nil, fioreport.JobOf(r, nil)))
		var doc struct {
			Jobs []struct {
				Series map[string]any `json:"series"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
		s := doc.Jobs[0].Series
		require.Equal(t, 1000.0, s["interval_ms"])
		if n <= fioreport.MaxSeries {
			require.Len(t, s["iops"], n)
			require.NotContains(t, s, "note")
			continue
		}
		require.Nil(t, s["iops"])
		require.Equal(t, float64(n), s["intervals"])
		require.Contains(t, s["note"], "--write_device_log")
		require.Less(t, b.Len(), 100_000, "the JSON stays small")
	}
}
