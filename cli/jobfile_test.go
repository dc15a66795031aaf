package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJobFileDescriptionInJSON: a job file's description= is the job's
// desc in fio's JSON, and not reported as an option not applied.
func TestJobFileDescriptionInJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "d.fio")
	require.NoError(t, os.WriteFile(file, []byte("[w]\ndescription=4k random writes\nrw=randwrite\nsize=8m\n"), 0o644))
	code, out, errOut := runCmd(t, "run", file, "--drive=generic-mlc-small", "--capacity=4GiB", "--output-format=json")
	require.Equal(t, exitOK, code, errOut)
	require.NotContains(t, errOut, "not applied")
	var doc struct {
		Jobs []struct {
			Desc string `json:"desc"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Jobs, 1)
	require.Equal(t, "4k random writes", doc.Jobs[0].Desc)
}
