package fioreport_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// writes is a result of n writes and n FLUSH commands, and no reads or
// trims, as the engine reports it (percentiles listed for every
// direction, zero where there was no I/O).
func writes(n int64) *sim.Result {
	pct := func(v int64) map[float64]int64 {
		m := map[float64]int64{}
		for _, p := range sim.DefaultPercentiles() {
			m[p] = v
		}
		return m
	}
	lat := func(n, v int64) sim.LatencyStats {
		if n == 0 {
			return sim.LatencyStats{Percentiles: pct(0)}
		}
		return sim.LatencyStats{N: n, Min: v, Max: v, Mean: float64(v), Percentiles: pct(v)}
	}
	return &sim.Result{
		Name: "w", RuntimeNs: sim.Second, EndNs: sim.Second,
		Read:  sim.DirStats{Latency: lat(0, 0)},
		Write: sim.DirStats{IOs: n, Bytes: 4096 * n, Latency: lat(n, 50_000)},
		Trim:  sim.DirStats{Latency: lat(0, 0)},
		Sync:  sim.DirStats{IOs: n, Latency: lat(n, 2_000_000)},
	}
}

// decode writes jobs as fio's JSON and reads the first job back as a tree.
func decode(t *testing.T, rep fioreport.Report) (map[string]any, map[string]any) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, rep.Write(&b))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	return doc, doc["jobs"].([]any)[0].(map[string]any)
}

// TestPercentilesOnlyWithSamples: as fio's add_ddir_lat_json, a latency
// object carries percentiles only when it has samples — none for the
// directions a job did not do — and the sync object carries them (fio
// writes them unless both clat and lat percentiles are off).
func TestPercentilesOnlyWithSamples(t *testing.T) {
	_, job := decode(t, fioreport.NewReport(nil, fioreport.JobOf(writes(10), nil)))
	dir := func(d, lat string) map[string]any { return job[d].(map[string]any)[lat].(map[string]any) }
	require.NotContains(t, dir("read", "clat_ns"), "percentile", "no reads, no read percentiles")
	require.NotContains(t, dir("trim", "clat_ns"), "percentile")
	require.Contains(t, dir("write", "clat_ns"), "percentile")
	sync := dir("sync", "lat_ns")
	require.Contains(t, sync, "percentile", "FLUSH latency percentiles")
	require.EqualValues(t, 2_000_000, sync["percentile"].(map[string]any)["99.000000"])

	off := writes(10)
	off.NoPercentiles = true
	_, job = decode(t, fioreport.NewReport(nil, fioreport.JobOf(off, nil)))
	require.NotContains(t, dir("sync", "lat_ns"), "percentile", "clat_percentiles=0 and lat_percentiles=0")
}

// TestDescription: a job's description= is fio's "desc".
func TestDescription(t *testing.T) {
	_, job := decode(t, fioreport.NewReport(nil, fioreport.JobOf(writes(1), map[string]string{"description": "4k random writes"})))
	require.Equal(t, "4k random writes", job["desc"])
	_, job = decode(t, fioreport.NewReport(nil, fioreport.JobOf(writes(1), nil)))
	require.NotContains(t, job, "desc", "absent when not set, as fio")
}

// TestStamp: the report's time fields, as fio writes them.
func TestStamp(t *testing.T) {
	rep := fioreport.NewReport(nil, fioreport.JobOf(writes(1), nil))
	doc, _ := decode(t, rep)
	require.EqualValues(t, 0, doc["timestamp"], "NewReport is a pure function of the results")
	rep.Stamp(time.Date(2026, 12, 1, 9, 5, 3, 250e6, time.UTC))
	doc, _ = decode(t, rep)
	require.EqualValues(t, 1796115903, doc["timestamp"])
	require.EqualValues(t, int64(1796115903250), doc["timestamp_ms"])
	require.Equal(t, "Tue Dec  1 09:05:03 2026", doc["time"])
}
