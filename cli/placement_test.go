package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// The text output's drive line shows the effective spare, and a drive
// whose write points and reserve hold more than a quarter of its spare
// gets a warning line under it (the JSON carries both in "geometry").
func TestDriveLineShowsEffectiveSpareAndWarns(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		diesPerTarget int
		warn          bool
	}{{1, false}, {16, true}} {
		c, err := controller.Preset("bp4-60")
		require.NoError(t, err)
		c.NAND.Geometry.DiesPerTarget = tc.diesPerTarget
		c.Firmware.GCReserve = controller.ReserveSpare
		b, err := c.Marshal()
		require.NoError(t, err)
		file := filepath.Join(dir, "d.yaml")
		require.NoError(t, os.WriteFile(file, b, 0o644))
		args := []string{"--drive=" + file, "--capacity=32GiB", "--rw=write", "--bs=128k", "--size=1m"}
		code, out, errs := runCmd(t, args...)
		require.Equal(t, 0, code, errs)
		line := strings.SplitN(out, "\n", 2)[0]
		assert.Regexp(t, `\(\d+\.\d\d % spare, \d+\.\d\d % effective\)`, line)
		assert.Equal(t, tc.warn, strings.Contains(out, "\nwarning: bp4-60: write points and reserve hold"), out)
		code, out, errs = runCmd(t, append(args, "--output-format=json")...)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, out, `"effective_op_percent"`)
		assert.Equal(t, tc.warn, strings.Contains(out, `"warnings"`))
	}
}

// A zoned preset runs a sequential write of one zone; the drive line
// names its zones and limits, the JSON carries device.zones, and a write
// past the zone's capacity fails with the NVMe status.
func TestZonedPresetRuns(t *testing.T) {
	args := []string{"--drive=zn540-2t", "--capacity=137856MiB", "--rw=write", "--bs=128k", "--size=1077m"}
	code, out, errs := runCmd(t, args...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "zoned: 128 zones of 2 GiB (1.05 GiB writable), 14 open, 14 active")
	code, out, errs = runCmd(t, append(args, "--output-format=json")...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"zones": {`)
	code, _, errs = runCmd(t, "--drive=zn540-2t", "--capacity=137856MiB", "--rw=write", "--bs=128k", "--size=1078m")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errs, "Zone Is Full (SCT 1h SC B9h)")
}
