package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/testdrive"
)

// faultJob runs 4 KiB random reads over 256 MiB of drive, filled first,
// with faults, and returns the exit status, the JSON job and stderr.
func faultJob(t *testing.T, drive, faults string) (int, map[string]any, string) {
	t.Helper()
	code, out, errOut := runCmd(t, "--drive="+drive, "--faults="+faults, "--precondition=fill", "--rw=randread",
		"--size=256m", "--runtime=0.2", "--time_based", "--output-format=json")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc), errOut)
	return code, doc["jobs"].([]any)[0].(map[string]any), errOut
}

// On a worn, aged drive whose raw bit errors pass its ECC, the SandForce
// drive (RAISE) rebuilds the reads from parity, and the Marvell one,
// without, fails them: EIO, exit status 1 once the results are written.
func TestFaultsRaiseRebuildsWhereOthersFail(t *testing.T) {
	const faults = "wear=1,age=1y,rber_scale=100"
	code, job, errOut := faultJob(t, testdrive.Preset(t, "atlas-60"), faults)
	require.Equal(t, exitOK, code, errOut)
	dev := job["device"].(map[string]any)
	for _, k := range []string{"read_retries", "retried_reads", "uncorrectable_reads", "parity_rebuilds", "failed_reads",
		"unreadable_units", "reclaimed_groups", "grown_bad_groups", "life_used", "uber", "flash_uber"} {
		require.Contains(t, dev, k)
	}
	require.Contains(t, job["geometry"], "grown_bad_blocks")
	require.Positive(t, dev["parity_rebuilds"])
	require.Equal(t, dev["uncorrectable_reads"], dev["parity_rebuilds"])
	require.Zero(t, dev["failed_reads"])
	require.Zero(t, dev["uber"])
	require.Positive(t, dev["flash_uber"])
	require.GreaterOrEqual(t, dev["life_used"], 1.0, "pre-worn to its rated cycles")
	require.Zero(t, job["error"])

	code, job, errOut = faultJob(t, testdrive.Preset(t, "m4-64"), faults)
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "reads failed")
	dev = job["device"].(map[string]any)
	require.Zero(t, dev["parity_rebuilds"])
	require.Positive(t, dev["failed_reads"])
	require.Positive(t, dev["uber"])
	require.Equal(t, 5.0, job["error"], "EIO")
	require.Equal(t, job["total_err"], dev["failed_reads"], "4 KiB reads: a unit a read")
}

// Grown bad blocks alone need no read-error model.
func TestFaultsGrownBadBlocks(t *testing.T) {
	code, out, errOut := runCmd(t, "--drive="+testdrive.TwoDies(t), "--capacity=512MiB", "--op=30", "--faults=wear=1.5,grown_bad_permille=999",
		"--rw=randwrite", "--number_ios=200000", "--output-format=json")
	require.Equal(t, exitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	job := doc["jobs"].([]any)[0].(map[string]any)
	require.Positive(t, job["device"].(map[string]any)["grown_bad_groups"])
	require.Positive(t, job["geometry"].(map[string]any)["grown_bad_blocks"])
}

// TestFaultsProgramFailures: program failures on a worn drive are each
// programmed again elsewhere and retire their group; the data the host
// wrote still reads back (verify), and the counters reach the JSON.
func TestFaultsProgramFailures(t *testing.T) {
	code, out, errOut := runCmd(t, "--drive="+testdrive.TwoDies(t), "--capacity=512MiB", "--op=30", "--faults=wear=4,program_fail_permille=999",
		"--rw=randwrite", "--number_ios=100000", "--verify=crc32c", "--output-format=json")
	require.Equal(t, exitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	job := doc["jobs"].([]any)[0].(map[string]any)
	dev := job["device"].(map[string]any)
	require.Positive(t, dev["program_failures"])
	require.Positive(t, dev["failed_program_units"])
	require.Zero(t, job["verify"].(map[string]any)["mismatches"], "every block reads back its last write")
}

func TestFaultsBadInput(t *testing.T) {
	cases := []struct{ faults, want string }{
		{"bogus=1", `unknown key "bogus"`},
		{"wear=11", "wear=11: allowed a share of the rated cycles 0..10"},
		{"age=forever", "age=forever: allowed a time 0..100y"},
		{"rber_scale=0", "rber_scale=0: allowed a number 0.001..1000"},
		{"grown_bad_permille=1000", "grown_bad_permille=1000: allowed an integer 0..999"},
		{"bad_block_permille=-1", "bad_block_permille=-1: allowed an integer 0..100"},
		{"program_fail_permille=1000", "program_fail_permille=1000: allowed an integer 0..999"},
		{"read_reclaim=x", "read_reclaim=x: allowed an integer 0..1000000000"},
		{"ecc_bits=0", "ecc_bits=0: allowed an integer 1..1000"},
		{"on=1", "on=1: allowed no value"},
		{"", "--faults: empty"},
	}
	for _, c := range cases {
		t.Run(c.faults, func(t *testing.T) {
			code, out, errOut := runCmd(t, "--faults="+c.faults, "--rw=read", "--number_ios=10")
			require.Equal(t, exitUsage, code, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, c.want)
		})
	}
	// The scenario and job-file commands take it too.
	code, _, errOut := runCmd(t, "scenario", "consistency", "--faults=wear=x")
	require.Equal(t, exitUsage, code)
	require.True(t, strings.Contains(errOut, "wear=x"), errOut)
}

// TestEnduranceScenario: `ftlsim scenario endurance` runs rounds until the
// drive retires, with the read-error model on, gives the rounds as JSON
// and draws the chart; bad parameters exit 2.
func TestEnduranceScenario(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "endurance.svg")
	code, out, errOut := runCmd(t, append([]string{"scenario", "endurance", "--quick=1", "--round_wear=0.5", "--chart=" + chart, "--output-format=json"}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		Rounds []struct {
			LifeUsed       float64 `json:"life_used"`
			HostBytes      int64   `json:"host_bytes"`
			RetriesPerRead float64 `json:"retries_per_read"`
		} `json:"rounds"`
		Retired string `json:"retired"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Greater(t, len(doc.Rounds), 2)
	require.NotEmpty(t, doc.Retired)
	last := doc.Rounds[len(doc.Rounds)-1]
	require.Greater(t, last.RetriesPerRead, doc.Rounds[0].RetriesPerRead)
	svg, err := os.ReadFile(chart)
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")
	for _, bad := range []string{"--round_wear=0", "--retention=soon", "--chart=" + filepath.Join(dir, "x.txt"), "--quick=2"} {
		code, _, errOut := runCmd(t, append([]string{"scenario", "endurance", bad}, quick...)...)
		require.Equal(t, exitUsage, code, "%s: %s", bad, errOut)
		require.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %s", errOut)
	}
}
