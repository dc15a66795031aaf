package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFioExamplesAsFioRunsThem runs three of fio's examples (copied
// unchanged into testdata/fio-examples) as `ftlsim run FILE` with no
// other option, each job capped at 2 simulated seconds, and checks each
// ends as fio ends it: uring-cmd-pi-ext.fio runs (exit 0) on the default
// drive formatted with the extended LBA its bs=4160 names;
// cross-stripe-verify.fio runs its clones that fit on the 256 GiB drive
// and names those fio would not start (exit 1); e4defrag.fio runs and its
// verifying clones, which share a file, find each other's blocks, as fio
// 3.33's do (exit 1).
func TestFioExamplesAsFioRunsThem(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three job files")
	}
	for _, c := range []struct {
		file   string
		code   int
		stderr []string
	}{
		{"uring-cmd-pi-ext.fio", exitOK, []string{"the extended LBA format 4096+64"}},
		{"cross-stripe-verify.fio", exitError, []string{"write-verify.3: you need to specify valid offset=", "jobs did not start: write-verify.3, "}},
		{"e4defrag.fio", exitError, []string{"verify failed: job random-aio-32k."}},
	} {
		t.Run(c.file, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main([]string{"run", "testdata/fio-examples/" + c.file}, &out, &errOut, withRuntimeCap(2e9))
			require.Equal(t, c.code, code, errOut.String())
			for _, s := range c.stderr {
				require.Contains(t, errOut.String(), s)
			}
			require.False(t, strings.Contains(errOut.String(), "internal error"))
		})
	}
}
