package cli

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain fixes the time fio JSON reports are stamped with, so that tests
// comparing two runs' documents byte for byte compare their results.
func TestMain(m *testing.M) {
	os.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	os.Exit(m.Run())
}

// TestReportsAreStamped: a fio JSON report carries the time it was
// written, as fio's does, or SOURCE_DATE_EPOCH's when that is set.
func TestReportsAreStamped(t *testing.T) {
	args := append([]string{"--output-format=json", "--rw=randwrite", "--runtime=1", "--time_based"}, quick...)
	code, out, errOut := runUntil(t, time.Hour, args...)
	require.Equal(t, exitOK, code, errOut)
	doc := fioDoc(t, out)
	require.EqualValues(t, 1700000000, doc["timestamp"])
	require.Equal(t, "Tue Nov 14 22:13:20 2023", doc["time"])

	t.Setenv("SOURCE_DATE_EPOCH", "")
	require.NoError(t, os.Unsetenv("SOURCE_DATE_EPOCH"))
	before := time.Now().Unix()
	code, out, errOut = runUntil(t, time.Hour, args...)
	require.Equal(t, exitOK, code, errOut)
	doc = fioDoc(t, out)
	require.GreaterOrEqual(t, int64(doc["timestamp"].(float64)), before)
	require.LessOrEqual(t, int64(doc["timestamp"].(float64)), time.Now().Unix())
	require.NotEmpty(t, doc["time"])
}
