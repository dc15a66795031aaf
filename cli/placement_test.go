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
