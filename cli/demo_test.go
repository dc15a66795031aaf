package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// synthetic is a consistency run of n one-second intervals with IOPS
// iops(i) and write amplification wa(i).
func synthetic(n int, iops, wa func(i int) float64) *sim.Result {
	r := &sim.Result{EndNs: int64(n) * sim.Second, RuntimeNs: int64(n) * sim.Second}
	for i := range n {
		io := iops(i)
		r.Intervals.Append(sim.Interval{StartNs: int64(i) * sim.Second, EndNs: int64(i+1) * sim.Second,
			IOPS: io, WriteIOs: int64(io), WriteBytes: int64(io) * 4096, WriteAmplification: wa(i)})
	}
	return r
}

// TestDemoSettlesOnlyWhenFlat checks the demonstration's text on made-up
// runs: it says the drive settles only when the last quarter meets the
// steady-state rule, and otherwise says which way it is moving and by
// how much (the fitted line's change, which for a straight line is its
// slope across the rounds' centres).
func TestDemoSettlesOnlyWhenFlat(t *testing.T) {
	const n = 400
	fill := &sim.Result{RuntimeNs: 90 * sim.Second, Write: sim.DirStats{BWBytes: 180e6}}
	cliff := func(after func(i int) float64) func(int) float64 {
		return func(i int) float64 {
			if i < 5 {
				return 40000
			}
			return after(i)
		}
	}
	wa := func(i int) float64 {
		if i < 5 {
			return 1
		}
		return 5 + 10*math.Exp(-float64(i-5)/20)
	}
	text := func(r *sim.Result) string {
		var b bytes.Buffer
		writeDemo(&b, readDemo("test drive", 16<<30, fill, r))
		return b.String()
	}

	flat := text(synthetic(n, cliff(func(i int) float64 { return 4000 + 20*float64(i%2*2-1) }), wa))
	require.Contains(t, flat, "settles near 4000 IOPS")
	require.Contains(t, flat, "At 6 s they run out")
	require.Contains(t, flat, "Write amplification peaks just after the cliff, at 15.0 (6 s)")

	// A line rising 10 IOPS a second rises 800 IOPS between the centres
	// of the first and the last of the last quarter's five 20 s rounds,
	// on a mean of 2000 + 10 × 349.5: more than the rule's 10 %.
	rising := text(synthetic(n, cliff(func(i int) float64 { return 2000 + 10*float64(i) }), wa))
	require.NotContains(t, rising, "settles")
	require.Contains(t, rising, "it is still rising")
	require.Contains(t, rising, fmt.Sprintf("moves %+.1f %%", 100*800/5495.0))
	require.Contains(t, rising, "A longer run")

	falling := text(synthetic(n, cliff(func(i int) float64 { return 20000 - 20*float64(i) }), wa))
	require.NotContains(t, falling, "settles")
	require.Contains(t, falling, "it is still falling")

	// Level, but every other 20 s round at half the rate.
	swinging := text(synthetic(n, cliff(func(i int) float64 {
		if (i/20)%2 == 0 {
			return 4000
		}
		return 2000
	}), wa))
	require.NotContains(t, swinging, "settles")
	require.Contains(t, swinging, "level but still swinging")

	none := text(synthetic(n, func(int) float64 { return 4000 }, func(int) float64 { return 1 }))
	require.Contains(t, none, "no cliff in this run")
	require.NotContains(t, none, "peaks just after the cliff")
}

// TestDemoClaims runs the demonstration and checks what its text claims
// against the run's own series and the theory it cites.
func TestDemoClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demonstration")
	}
	d, err := runDemo()
	require.NoError(t, err)
	var b bytes.Buffer
	writeDemo(&b, d)
	text := b.String()
	whole := wholeIntervals(d.run.Intervals.Slice())

	// The cliff: the first second below half the first second's IOPS.
	cliff := -1
	for i, iv := range whole {
		if iv.IOPS < whole[0].IOPS/2 {
			cliff = i
			break
		}
	}
	require.GreaterOrEqual(t, cliff, 1, "the demonstration's drive has a cliff")
	require.Contains(t, text, fmt.Sprintf("At %d s they run out", whole[cliff].EndNs/sim.Second))

	// "The fill left every block fully valid": the first second copies
	// nothing.
	require.Zero(t, whole[0].GCCopiedUnits)
	require.InDelta(t, 1, whole[0].WriteAmplification, 0.01)

	// Write amplification peaks just after the cliff, above where it
	// ends, and no higher than the average block left by the fill would
	// give: greedy GC's victims hold at most the average valid share
	// exp(-host/capacity) of uniformly random rewrites, and freeing a
	// block holding a share v of valid data programs 1/(1-v) pages per
	// host page.
	peak, host, hostAtPeak := 0, int64(0), int64(0)
	for i, iv := range whole {
		if iv.WriteAmplification > whole[peak].WriteAmplification {
			peak, hostAtPeak = i, host
		}
		host += iv.WriteBytes
	}
	require.GreaterOrEqual(t, peak, cliff, "the peak follows the cliff")
	require.LessOrEqual(t, whole[peak].EndNs-whole[cliff].EndNs, 10*int64(sim.Second), "just after it")
	require.Contains(t, text, fmt.Sprintf("peaks just after the cliff, at %.1f (%d s)", whole[peak].WriteAmplification, whole[peak].EndNs/sim.Second))
	v := math.Exp(-float64(hostAtPeak) / float64(d.capacity))
	require.LessOrEqual(t, whole[peak].WriteAmplification, 1/(1-v)*1.01)
	require.Greater(t, whole[peak].WriteAmplification, 1.2*d.tailWA, "write amplification falls after the peak")
	require.Contains(t, text, fmt.Sprintf("still held about %.0f %% valid data", 100*v))

	// "Settles" only when the last quarter is flat: five rounds whose
	// means span at most 20 % of their average, and a fitted line moving
	// at most 10 % of it.
	var tail []sim.Interval
	for _, iv := range whole {
		if iv.StartNs >= (d.run.EndNs-d.run.StartNs)*3/4 {
			tail = append(tail, iv)
		}
	}
	var rounds, xs []float64
	for k := range 5 {
		var sum float64
		part := tail[k*len(tail)/5 : (k+1)*len(tail)/5]
		for _, iv := range part {
			sum += iv.IOPS
		}
		rounds = append(rounds, sum/float64(len(part)))
		xs = append(xs, float64(k))
	}
	mean := stat.Mean(rounds, nil)
	lo, hi := rounds[0], rounds[0]
	for _, r := range rounds {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	_, slope := stat.LinearRegression(xs, rounds, nil, false)
	flat := (hi-lo)/mean <= 0.20 && math.Abs(4*slope)/mean <= 0.10
	require.Equal(t, flat, strings.Contains(text, "settles"), "says it settles only when flat:\n%s", text)
	if flat {
		require.Contains(t, text, fmt.Sprintf("settles near %.0f IOPS", mean))
	}

	// The commands it names work after go run: each is a go run of the
	// command from the module's root, and runs (or, where it would take
	// long, parses and names drives that exist; the long tier runs it).
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	for _, c := range demoCommands() {
		require.Contains(t, text, wrapCommand(c, 100))
		args, ok := strings.CutPrefix(c, "go run ./cmd/ftlsim ")
		require.True(t, ok, "%s is a go run from the module's root", c)
		fields := strings.Fields(args)
		switch fields[0] {
		case "--help", "drives", "scenario":
			code, out, errOut := runCmd(t, fields...)
			require.Equal(t, exitOK, code, errOut)
			require.NotEmpty(t, out)
		case "review":
			// The README's review: cmd/ftlsim's TestDocs runs it in the
			// long tier (a quick review of two drives takes a minute).
			a, err := parseReview(fields[1:])
			require.NoError(t, err, c)
			for _, name := range a.drives {
				_, err := controller.Lookup(name)
				require.NoError(t, err, c)
			}
			require.Contains(t, string(readme), "\n"+c+"\n", "the demonstration's review is the README's")
		default:
			o, err := parseArgs(fields, modeJob, nil)
			require.NoError(t, err, c)
			drv, err := buildDrive(o, []*workload.Job{o.job}, o.intervalMsec*1e6)
			require.NoError(t, err, c)
			require.NoError(t, o.job.Resolve(int64(drv.Config().Capacity)), c)
			if testtier.IsLong() {
				code, _, errOut := runCmd(t, fields...)
				require.Equal(t, exitOK, code, errOut)
			}
		}
	}
	_, more, ok := strings.Cut(text, "\nMore, from the repository's root")
	require.True(t, ok)
	for _, l := range strings.Split(more, "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "      --") {
			require.True(t, strings.HasPrefix(l, "  go run ./cmd/ftlsim "), "a command that works after go run: %q", l)
		}
	}
}
