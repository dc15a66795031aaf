package cli

import (
	"bytes"
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
