package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fdpReport is the part of a run's JSON the FDP tests read.
type fdpReport struct {
	Jobs []struct {
		Name  string `json:"jobname"`
		Write struct {
			IOBytes int64 `json:"io_bytes"`
		} `json:"write"`
		Device struct {
			WriteAmplification float64 `json:"write_amplification"`
			EffectiveAlpha     float64 `json:"effective_alpha"`
			FDP                *struct {
				Host    int64 `json:"host_bytes_with_metadata_written"`
				Media   int64 `json:"media_bytes_written"`
				Invalid int64 `json:"invalid_placement_identifier_events"`
				Handles []struct {
					Host int64 `json:"host_bytes_with_metadata_written"`
				} `json:"handles"`
			} `json:"fdp"`
		} `json:"device"`
	} `json:"jobs"`
}

// runFDP runs args with a runtime cap of capNs and decodes the JSON.
func runFDP(t *testing.T, capNs int64, args ...string) fdpReport {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append(args, "--output-format=json"), &out, &errOut, withRuntimeCap(capNs))
	require.Equal(t, exitOK, code, errOut.String())
	var r fdpReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &r))
	require.NotEmpty(t, r.Jobs)
	require.NotNil(t, r.Jobs[0].Device.FDP, "device.fdp")
	return r
}

// TestFioFDPExamples runs fio's FDP examples, unchanged, on the FDP
// preset: each job's writes carry the placement identifiers its fdp_pli
// names, in turn, so the FDP statistics log shows each handle the host
// bytes of the jobs that name it (split evenly, to a write, among a job's
// handles), the others none; media bytes written over host bytes is the
// device's write amplification.
func TestFioFDPExamples(t *testing.T) {
	const bs = 4096
	t.Run("uring-cmd-fdp", func(t *testing.T) {
		r := runFDP(t, 2e9, "run", "testdata/fio-examples/uring-cmd-fdp.fio", "--drive=generic-nvme-fdp", "--capacity=64GiB")
		require.Len(t, r.Jobs, 3)
		written := map[string]int64{}
		for _, j := range r.Jobs {
			written[j.Name] = j.Write.IOBytes
			assert.Positive(t, j.Write.IOBytes, j.Name)
		}
		f := r.Jobs[0].Device.FDP
		require.Len(t, f.Handles, 8)
		h := func(i int) int64 { return f.Handles[i].Host }
		// write-heavy: fdp_pli=0,1,2,3 in turn.
		assert.Equal(t, written["write-heavy"], h(0)+h(1)+h(2)+h(3))
		for i := 1; i < 4; i++ {
			assert.InDelta(t, h(0), h(i), bs, "write-heavy's handles %d and 0", i)
		}
		// write-mid: 4,5; write-light: 6; handle 7 is named by none.
		assert.Equal(t, written["write-mid"], h(4)+h(5))
		assert.InDelta(t, h(4), h(5), bs)
		assert.Equal(t, written["write-light"], h(6))
		assert.Zero(t, h(7))
		assert.Zero(t, f.Invalid)
		assert.Equal(t, written["write-heavy"]+written["write-mid"]+written["write-light"], f.Host)
		wa := r.Jobs[0].Device.WriteAmplification
		assert.InDelta(t, wa, float64(f.Media)/float64(f.Host), 5e-4, "media/host bytes against the WA (rounded to 3 places)")
	})
	t.Run("xnvme-fdp", func(t *testing.T) {
		// As its comment says to run it.
		r := runFDP(t, 2e9, "run", "testdata/fio-examples/xnvme-fdp.fio", "--section=default", "--ioengine=xnvme", "--xnvme_async=io_uring_cmd",
			"--filename=/dev/ng0n1", "--drive=generic-nvme-fdp", "--capacity=64GiB")
		require.Len(t, r.Jobs, 1)
		f := r.Jobs[0].Device.FDP
		require.Len(t, f.Handles, 8)
		const half = 1 << 20 // size=2M of 4 KiB random writes, fdp_pli=4,5 in turn
		for i, s := range f.Handles {
			switch i {
			case 4, 5:
				assert.Equal(t, int64(half), s.Host, "handle %d", i)
			default:
				assert.Zero(t, s.Host, "handle %d", i)
			}
		}
		assert.InDelta(t, r.Jobs[0].Device.WriteAmplification, float64(f.Media)/float64(f.Host), 5e-4)
	})
}

// A job's placement identifiers are checked against those the drive
// reports, from a job file and from the command line; on a drive without
// FDP the job runs without them, with fio-like notes.
func TestPlacementIDsChecked(t *testing.T) {
	code, _, errs := runCmd(t, "--drive=generic-nvme-fdp", "--capacity=64GiB", "--rw=randwrite", "--bs=4k", "--size=8m", "--fdp=1", "--fdp_pli=8")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "PID index 8 must be smaller than 8")
	code, _, errs = runCmd(t, "--drive=generic-nvme", "--capacity=64GiB", "--rw=randwrite", "--bs=4k", "--size=8m", "--fdp=1")
	assert.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "the drive reports no placement identifiers")
	r := runFDP(t, 0, "--drive=generic-nvme-fdp", "--capacity=64GiB", "--rw=write", "--bs=64k", "--size=64m", "--fdp=1", "--plids=2")
	assert.Equal(t, int64(64<<20), r.Jobs[0].Device.FDP.Handles[2].Host, "the command line's job through handle 2")
}

// The tenants and hot-cold scenarios run from the command: with handles
// each writer's writes go through its own handle.
func TestTenantScenariosFromTheCommand(t *testing.T) {
	r := runFDP(t, 0, "scenario", "tenants", "--drive=generic-nvme-fdp", "--capacity=64GiB", "--handles=4", "--time=200ms", "--warmup=0s", "--fill=0")
	require.Len(t, r.Jobs, 1, "the tenants reported as one step")
	f := r.Jobs[0].Device.FDP
	for h, s := range f.Handles {
		assert.Equal(t, h < 4, s.Host > 0, "handle %d: %d bytes", h, s.Host)
	}
	r = runFDP(t, 0, "scenario", "hot-cold", "--drive=generic-nvme-fdp", "--capacity=64GiB", "--handles=2", "--time=200ms", "--warmup=0s", "--fill=0")
	f = r.Jobs[0].Device.FDP
	assert.Positive(t, f.Handles[0].Host, "hot")
	assert.Positive(t, f.Handles[1].Host, "cold")
	assert.InEpsilon(t, f.Handles[0].Host, f.Handles[1].Host, 0.2, "the two streams write about as much")

	code, _, errs := runCmd(t, "scenario", "tenants", "--drive=generic-nvme", "--capacity=64GiB", "--handles=4", "--time=200ms", "--warmup=0s", "--fill=0")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "has no FDP")
}
