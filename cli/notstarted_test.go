package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJobsPastTheEndDoNotStart checks fio's handling of a job file
// written for a larger device (fio's cross-stripe-verify.fio assumes 30 ×
// 124 GiB): on a block device, fio does not start a job whose offset is
// past the device's end ("you need to specify valid offset=", filesetup.c)
// and runs the others, exiting 1. On a 4 GiB drive, clones at 0, 1.5, 3
// and 4.5 GiB: the first three run and are reported, the fourth is
// named on stderr; with every clone past the end, the file is refused as
// bad input.
func TestJobsPastTheEndDoNotStart(t *testing.T) {
	dir := t.TempDir()
	run := func(text string) (int, string, []byte) {
		f := filepath.Join(dir, "job.fio")
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
		var out, errOut bytes.Buffer
		code := Main([]string{"run", f, "--drive=generic-mlc-small", "--capacity=4GiB", "--output-format=json"}, &out, &errOut)
		return code, errOut.String(), out.Bytes()
	}
	code, stderr, out := run("[global]\nfilename=/dev/nvme0n1\nbs=16k\nrw=write\nio_size=64m\noffset_increment=1536m\n[w]\nnumjobs=4\n")
	require.Equal(t, exitError, code, stderr)
	require.Contains(t, stderr, "w.3: you need to specify valid offset= (offset=4831838208 is past the end of the 4294967296-byte drive")
	require.Contains(t, stderr, "jobs did not start: w.3 ")
	var doc struct {
		Jobs []struct {
			Name  string `json:"jobname"`
			Write struct {
				Bytes int64 `json:"io_bytes"`
			} `json:"write"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	require.Len(t, doc.Jobs, 3)
	for _, j := range doc.Jobs {
		require.Equal(t, int64(64<<20), j.Write.Bytes, j.Name)
	}

	code, stderr, _ = run("[w]\nfilename=/dev/nvme0n1\nbs=16k\nrw=write\noffset=5g\n")
	require.Equal(t, exitUsage, code, stderr)
	require.Contains(t, stderr, "offset=5368709120: past the end of the 4294967296-byte drive")
}
