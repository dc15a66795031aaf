package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// Every user-input error exits 2 with one line naming what was wrong:
// those that once ended as internal errors or exit 1.
func TestInputErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	// A drive description whose float is NaN or infinite.
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	b, err := cfg.Marshal()
	require.NoError(t, err)
	nonFinite := map[string]string{}
	for _, v := range []string{".nan", ".inf", "-.inf"} {
		f := filepath.Join(dir, "drive"+v+".yaml")
		require.NoError(t, os.WriteFile(f, []byte(strings.Replace(string(b), "transfer_byte_nj: ", "transfer_byte_nj: "+v+" #", 1)), 0o644))
		nonFinite[v] = f
	}
	opNaN := filepath.Join(dir, "op.yaml")
	require.NoError(t, os.WriteFile(opNaN, []byte(strings.Replace(string(b), "op_percent: ", "op_percent: .nan #", 1)), 0o644))
	// A job file with a line over 1 MiB.
	longLine := filepath.Join(dir, "long.fio")
	require.NoError(t, os.WriteFile(longLine, []byte("[a]\nrw=read\ndescription="+strings.Repeat("x", 1<<20)+"\n"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--rw=read", "--number_ios=10", "--drive=" + nonFinite[".nan"], "--output-format=json"}, "power.transfer_byte_nj = NaN, allowed a finite number"},
		{[]string{"--rw=read", "--number_ios=10", "--drive=" + nonFinite[".inf"]}, "power.transfer_byte_nj = +Inf"},
		{[]string{"--rw=read", "--number_ios=10", "--drive=" + nonFinite["-.inf"]}, "power.transfer_byte_nj = -Inf"},
		{[]string{"--rw=read", "--number_ios=10", "--drive=" + opNaN}, "op_percent = NaN"},
		{[]string{"--rw=read", "--drive=" + dir}, "--drive=" + dir + ": is a folder"},
		{[]string{"drives", dir}, "drives " + dir + ": is a folder"},
		{[]string{"run", longLine}, "long.fio:3: invalid job option: line too long, allowed at most 1048576 bytes"},
		{[]string{"run", dir}, "run " + dir + ": is a folder"},
		{[]string{"scenario", "consistency", "--drive=" + nonFinite[".nan"]}, "power.transfer_byte_nj = NaN"},
		{[]string{"review", "--quick", "--drive=" + nonFinite[".nan"], "--out=" + filepath.Join(dir, "r")}, "power.transfer_byte_nj = NaN"},
		{[]string{"review", "--quick", "--drive=" + dir, "--out=" + filepath.Join(dir, "r")}, "is a folder"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, c.args...)
			require.Equal(t, exitUsage, code, errOut)
			require.Empty(t, out)
			oneErrorLine(t, errOut)
			require.Contains(t, errOut, c.want)
		})
	}
}
