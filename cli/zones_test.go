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

// TestZoneLimitRefusals runs jobs that break a zoned drive's rules on a
// small drive of four open and four active zones. Where fio refuses a job
// before it starts (max_open_zones over the device's limit), ftlsim does,
// with fio's words, exit 2. Where fio lets it run (ignore_zone_limits, a
// job that is not zonemode=zbd), the drive refuses the command with the
// NVMe status and the job ends with the error Linux reports for it, as
// fio prints it (fio's io_u error line, and for EOVERFLOW its
// max_active_zones line): exit 1, the job's JSON error the errno.
func TestZoneLimitRefusals(t *testing.T) {
	dir := t.TempDir()
	drive := func(name, extra string) string {
		p := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(p, []byte("base: generic-nvme-zns\nfirmware:\n  zoned:\n    max_open: 4\n    max_active: "+extra+"\n"), 0o644))
		return p
	}
	four := drive("four", "4")
	strict := drive("strict", "8\n    no_auto_close: true")
	cases := []struct {
		name, drive, job string
		code             int
		errno            int
		msgs             []string
	}{
		{"max_open_zones over the device's", four, "zonemode=zbd\nrw=randwrite\nbs=64k\nmax_open_zones=8\n", exitUsage, 0,
			[]string{"Specified --max_open_zones (8) is larger than max (4)"}},
		{"ignore_zone_limits: past the active limit", four, "zonemode=zbd\nrw=randwrite\nbs=64k\nmax_open_zones=8\nignore_zone_limits=1\nnumber_ios=500\n", exitError, 75,
			[]string{"fio: io_u error: Value too large for defined data type: write offset=", "Too Many Active Zones (SCT 1h SC BDh)",
				"Exceeded max_active_zones limit. Check conditions of zones out of I/O ranges."}},
		{"ignore_zone_limits: past the open limit, no auto-close", strict, "zonemode=zbd\nrw=randwrite\nbs=64k\nmax_open_zones=8\nignore_zone_limits=1\nnumber_ios=500\n", exitError, 109,
			[]string{"fio: io_u error: Too many references: cannot splice: write offset=", "Too Many Open Zones (SCT 1h SC BEh)"}},
		{"a conventional job writes off the write pointer", four, "rw=randwrite\nbs=64k\nnumber_ios=50\n", exitError, 5,
			[]string{"fio: io_u error: Input/output error: write offset=", "Zone Invalid Write (SCT 1h SC BCh)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, "j.fio")
			require.NoError(t, os.WriteFile(f, []byte("[j]\n"+c.job), 0o644))
			out := filepath.Join(dir, "j.json")
			var stdout, stderr bytes.Buffer
			code := Main([]string{"run", f, "--drive=" + c.drive, "--capacity=16GiB", "--output-format=json", "--output=" + out}, &stdout, &stderr)
			require.Equal(t, c.code, code, stderr.String())
			for _, m := range c.msgs {
				require.Contains(t, stderr.String(), m)
			}
			if c.code == exitUsage {
				return
			}
			b, err := os.ReadFile(out)
			require.NoError(t, err, "the results are written")
			var doc struct {
				Jobs []struct {
					Error int `json:"error"`
				} `json:"jobs"`
			}
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Len(t, doc.Jobs, 1)
			require.Equal(t, c.errno, doc.Jobs[0].Error)
		})
	}
}
