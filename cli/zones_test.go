package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZonedJobOnConventionalDrive: a zonemode=zbd job on a conventional
// drive is refused with exit 2 and one line naming the file, the job,
// the drive and the zoned presets.
func TestZonedJobOnConventionalDrive(t *testing.T) {
	f := filepath.Join(t.TempDir(), "zbd.fio")
	require.NoError(t, os.WriteFile(f, []byte("[w]\nzonemode=zbd\nzonesize=256m\nmax_open_zones=8\nrw=randwrite\nbs=512k\n"), 0o644))
	var out, errOut bytes.Buffer
	code := Main([]string{"run", f, "--drive=generic-mlc-small"}, &out, &errOut)
	require.Equal(t, exitUsage, code, errOut.String())
	msg := errOut.String()
	require.Contains(t, msg, "zbd.fio:1: [w]")
	require.Contains(t, msg, "drive generic-mlc-small is conventional, not a zoned block device; the zoned presets: ")
	require.Equal(t, 1, bytes.Count(errOut.Bytes(), []byte("\n")), "one line")
}

// TestNamespacesJobFile runs four tenants, each on its own namespace of a
// drive of four (Micron's four-namespace experiment, shortened): each
// job writes only its namespace, and the JSON sums the jobs of each.
func TestNamespacesJobFile(t *testing.T) {
	dir := t.TempDir()
	drive := filepath.Join(dir, "four.yaml")
	require.NoError(t, os.WriteFile(drive, []byte("base: generic-mlc-small\nhost:\n  namespaces: 4\n"), 0o644))
	var job bytes.Buffer
	job.WriteString("[global]\nrw=write\nnumber_ios=200\n")
	for i, bs := range []string{"4k", "16k", "64k", "256k"} {
		fmt.Fprintf(&job, "[tenant%d]\nfilename=/dev/nvme0n%d\nbs=%s\n", i+1, i+1, bs)
	}
	f := filepath.Join(dir, "tenants.fio")
	require.NoError(t, os.WriteFile(f, job.Bytes(), 0o644))
	var out, errOut bytes.Buffer
	code := Main([]string{"run", f, "--drive=" + drive, "--capacity=4GiB", "--output-format=json"}, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	var doc struct {
		Jobs []struct {
			Name      string `json:"jobname"`
			Namespace int    `json:"namespace"`
		} `json:"jobs"`
		Namespaces []struct {
			ID         int      `json:"nsid"`
			Jobs       []string `json:"jobs"`
			WriteBytes int64    `json:"write_bytes"`
		} `json:"namespaces"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	require.Len(t, doc.Namespaces, 4)
	for i, n := range doc.Namespaces {
		require.Equal(t, i+1, n.ID)
		require.Equal(t, []string{fmt.Sprintf("tenant%d", i+1)}, n.Jobs)
		require.Equal(t, int64(200)*(4096<<(2*i)), n.WriteBytes, "200 writes of the tenant's block size")
		require.Equal(t, i+1, doc.Jobs[i].Namespace)
	}

	// A namespace the drive does not have.
	require.NoError(t, os.WriteFile(f, []byte("[a]\nfilename=/dev/nvme0n5\nrw=write\n"), 0o644))
	errOut.Reset()
	code = Main([]string{"run", f, "--drive=" + drive, "--capacity=4GiB"}, &out, &errOut)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut.String(), "the drive has namespaces 1..4")
}
