package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFioZonedExamples runs fio's nine zoned example job files
// (testdata/fio-zoned, unchanged) with ftlsim run FILE and no --drive, so
// on the default zoned preset (xnvme-zoned.fio with the --section=default
// its comments say to run it with: its other section needs ${FIO_RW} and
// friends, which fio too refuses empty), each job capped at 3 simulated
// seconds:
// each runs, every zbd job that writes or trims reports fio's
// zone_resets, and the files whose jobs reset zones count them: the
// trim job of zbd-rand-write-trim-gc, zbd-rand-write-zone-reset-gc past
// its threshold, and the later jobs of the uring-cmd files, which reset
// the zones the earlier ones wrote before they write and verify them
// (fio's zbd_file_reset).
func TestFioZonedExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nine job files")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fio-zoned", "*.fio"))
	require.NoError(t, err)
	require.Len(t, files, 9)
	resets := map[string]bool{ // the files whose jobs must reset zones
		"zbd-rand-write-trim-gc.fio": true, "zbd-rand-write-zone-reset-gc.fio": true,
		"uring-cmd-zoned.fio": true, "uring-cmd-zoned-append.fio": true,
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			var stdout, stderr bytes.Buffer
			args := append([]string{"run", f, "--output-format=json", "--output=" + out}, documentedInvocations[name].args...)
			code := Main(args, &stdout, &stderr, withRuntimeCap(3e9))
			require.Equal(t, exitOK, code, stderr.String())
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			var doc struct {
				Jobs []struct {
					Name       string `json:"jobname"`
					Error      int    `json:"error"`
					ZoneResets *int64 `json:"zone_resets"`
					Write      struct {
						IOs int64 `json:"total_ios"`
					} `json:"write"`
					Trim struct {
						IOs int64 `json:"total_ios"`
					} `json:"trim"`
					Device struct {
						Zones *struct {
							Resets  int64 `json:"resets"`
							Refused int64 `json:"refused"`
						} `json:"zones"`
					} `json:"device"`
				} `json:"jobs"`
			}
			require.NoError(t, json.Unmarshal(b, &doc))
			require.NotEmpty(t, doc.Jobs)
			var total int64
			for _, j := range doc.Jobs {
				require.Zero(t, j.Error, "job %s", j.Name)
				z := j.Device.Zones
				require.NotNil(t, z, "job %s: the zoned drive's zone counts", j.Name)
				require.Zero(t, z.Refused, "job %s: the drive refused no zone command", j.Name)
				if j.Write.IOs+j.Trim.IOs > 0 {
					require.NotNil(t, j.ZoneResets, "job %s: fio's zone_resets", j.Name)
					total += *j.ZoneResets
					require.LessOrEqual(t, *j.ZoneResets, z.Resets, "job %s: each reset it counts is one the drive made", j.Name)
				}
			}
			if resets[name] {
				require.Positive(t, total, "zone resets counted")
			}
		})
	}
}
