package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHistBinMatchesFiosRanges: each latency falls in the bin whose range
// fio's tools give it (tools/hist/fio-histo-log-pctiles.py, time_ranges:
// 64 bins a group, the first two groups 1 ns wide, each later one twice
// the width of the one before).
func TestHistBinMatchesFiosRanges(t *testing.T) {
	lo := make([]int64, histBins)
	hi := make([]int64, histBins)
	width, base := int64(1), int64(0)
	for g := range histGroups {
		for b := range histVal {
			lo[g*histVal+b], hi[g*histVal+b] = base, base+width
			base += width
		}
		if g != 0 {
			width *= 2
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []int64{0, 1, 63, 64, 127, 128, 129, 130, 255, 256, 1000, 1e6, 1e9}
	for range 10000 {
		vals = append(vals, int64(rng.ExpFloat64()*float64(int64(1)<<rng.IntN(40))))
	}
	for _, v := range vals {
		i := histBin(v)
		if v >= hi[histBins-1] {
			require.Equal(t, histBins-1, i, "%d ns: beyond the last bin, in it", v)
			continue
		}
		require.True(t, v >= lo[i] && v < hi[i], "%d ns in bin %d [%d, %d)", v, i, lo[i], hi[i])
	}
	require.Equal(t, histBins-1, histBin(1<<62), "the last bin takes the rest")
}

// TestHistLog: --write_hist_log writes a line a direction each interval,
// fio's 1,856 bins after time, direction and block size, and the bins
// count every completion of the run.
func TestHistLog(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "h")
	code, _, errOut := runCmd(t, append([]string{"--rw=randrw", "--iodepth=8", "--runtime=3", "--write_hist_log=" + prefix, "--write_iops_log=" + prefix}, quick...)...)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(prefix + "_clat_hist.1.log")
	require.NoError(t, err)
	var n [2]int64
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3*2, "three intervals, reads and writes")
	for _, l := range lines {
		f := strings.Split(l, ", ")
		require.Len(t, f, 3+histBins)
		d, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		for _, c := range f[3:] {
			x, err := strconv.ParseInt(c, 10, 64)
			require.NoError(t, err)
			n[d] += x
		}
	}
	// The per-I/O iops log has a line per completion.
	iops, err := os.ReadFile(prefix + "_iops.1.log")
	require.NoError(t, err)
	var want [2]int64
	for _, l := range strings.Split(strings.TrimSpace(string(iops)), "\n") {
		d, err := strconv.Atoi(strings.Split(l, ", ")[2])
		require.NoError(t, err)
		want[d]++
	}
	require.Equal(t, want, n)
}
