package fit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/fit"
)

// kitFolder copies the kit's job files and the files of src (fio's
// outputs) into a folder, as a user keeps them.
func kitFolder(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for _, pat := range []string{filepath.Join(kit, "*.fio"), filepath.Join(src, "*")} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		for _, f := range m {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644))
		}
	}
	return dir
}

// TestFioFixtures reads the output of real fio 3.33 running every job
// file of the kit (examples/measure/testdata): each timed job and each
// log gives its targets, with the values fio wrote.
func TestFioFixtures(t *testing.T) {
	dir := kitFolder(t, filepath.Join(kit, "testdata", "fio-3.33"))
	ts, err := fit.LoadFio(dir)
	require.NoError(t, err)
	got := map[string]float64{}
	for _, tg := range ts.List {
		got[tg.Name()] = tg.Value
	}
	// Values as fio wrote them in the fixtures (bw_bytes / 1e6, iops) and
	// read off its logs.
	want := map[string]float64{
		"consistency.json: [consistency] write IOPS": 27567.621619,
		"trim.json: [clean] write MB/s":              220.352927,
		"trim.json: [after-trim] write MB/s":         268.033405,
		"trim.json: [dirty] write MB/s":              414.635562,
	}
	for k, v := range want {
		assert.InDelta(t, v, got[k], 1e-9, k)
	}
	for _, name := range []string{"fill.json: [fill] bw log: mean MB/s", "sustained.json: [sustained-write] bw log: mean MB/s",
		"consistency.json: [consistency] iops log: steady median", "qdsweep.json: [4k-rand-read-qd32] read IOPS",
		"fourcorners.json: [4k-rand-write-qd32] write IOPS", "fourcorners.json: [128k-seq-read-qd1] read MB/s"} {
		assert.Greater(t, got[name], 0.0, name)
	}
	for name := range got {
		for _, prep := range []string{"[fill-span]", "[trim-all]", "[idle]", "[fill] write"} {
			assert.NotContains(t, name, prep, "a preparation job is not a target")
		}
	}
	// The variables the reports show, recovered for the job files: the
	// consistency run's 20 s.
	assert.Len(t, ts.Procedures, 6)
}

// TestSameFilesAsRun checks that the figures a fit simulates are the ones
// `ftlsim run` writes: the kit's files run by the command on a drive,
// read back as targets, equal the fit's own run of the same drive.
func TestSameFilesAsRun(t *testing.T) {
	cfg := smallBP4(t)
	dir := t.TempDir()
	b, err := cfg.Marshal()
	require.NoError(t, err)
	drive := filepath.Join(dir, "drive.yaml")
	require.NoError(t, os.WriteFile(drive, b, 0o644))
	env := smallKit()
	env["CONSIST_TIME"] = "5"
	measure(t, drive, dir, env, "consistency")
	ts, err := fit.LoadFio(dir)
	require.NoError(t, err)
	figs, err := ts.Procedures["consistency.json"].Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, ts.List)
	for _, tg := range ts.List {
		assert.Equal(t, tg.Value, figs[tg.Figure], tg.Name())
	}
}

// TestBadTargets checks that bad targets are refused with one line naming
// the file and the entry.
func TestBadTargets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
		return f
	}
	for _, c := range []struct{ name, text, want string }{
		{"scenario.yaml", "targets:\n  - procedure: consistency\n    figure: \"consistency: steady median\"\n    value: 1\n  - procedure: nosuch\n    figure: x\n    value: 1\n", "scenario.yaml:5: targets[1]: procedure"},
		{"range.yaml", "targets:\n  - procedure: consistency\n    figure: \"consistency: steady median\"\n    range: [5, 1]\n", "range.yaml:2: targets[0]: range = [5 1], allowed [lo, hi] with lo < hi"},
		{"value.yaml", "targets:\n  - procedure: consistency\n    figure: \"consistency: steady median\"\n", "value.yaml:2: targets[0]: value: missing"},
		{"weight.yaml", "targets:\n  - procedure: consistency\n    figure: f\n    value: 1\n    weight: -1\n", "weight.yaml:2: targets[0]: weight = -1, allowed > 0"},
		{"option.yaml", "targets:\n  - procedure: consistency\n    options: {tiem: 10s}\n    figure: f\n    value: 1\n", "option.yaml:2: targets[0]: options:"},
		{"field.yaml", "targets:\n  - procedure: consistency\n    figur: f\n", "field.yaml:3: field figur not found (allowed: procedure"},
	} {
		_, err := fit.LoadFigures(write(c.name, c.text))
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.NotContains(t, err.Error(), "\n", c.name)
	}

	// A log with a gap: a second missing.
	logs := kitFolder(t, filepath.Join(kit, "testdata", "fio-3.33"))
	f := filepath.Join(logs, "consistency_iops.2.log")
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.Greater(t, len(lines), 5)
	require.NoError(t, os.WriteFile(f, []byte(strings.Join(append(lines[:3:3], lines[4:]...), "")), 0o644))
	_, err = fit.LoadFio(logs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "consistency_iops.2.log:4: a gap in the log")

	// A parameter without bounds whose drive value is 0; one that is not
	// a field; bounds the wrong way round.
	cfg, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	for arg, want := range map[string]string{
		"firmware.gc_restore_to":          "firmware.gc_restore_to: the drive leaves it at 0, so it has no default bounds",
		"firmware.nosuch=1..2":            `parameter "firmware.nosuch": no such field`,
		"firmware.gc_streams=8..2":        "parameter firmware.gc_streams: bounds \"8..2\"",
		"firmware.gc_policy=1..2":         "parameter firmware.gc_policy: a string field cannot be fitted",
		"firmware.gc_pace_percent=0..0.5": "firmware.gc_pace_percent: bounds",
	} {
		_, err := fit.ParseParam(cfg, arg)
		require.Error(t, err, arg)
		assert.Contains(t, err.Error(), want, arg)
	}
}

// TestDefaultParams checks the default parameters: the firmware costs
// the drive sets, from the field table, each with bounds around its value.
func TestDefaultParams(t *testing.T) {
	cfg, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	var paths []string
	for _, p := range fit.DefaultParams(cfg) {
		paths = append(paths, p.Path)
		f, ok := controller.LookupField(p.Path)
		require.True(t, ok)
		assert.Equal(t, controller.LayerFirmware, f.Layer, p.Path)
		assert.Less(t, p.Lo, p.Start, p.Path)
		assert.Greater(t, p.Hi, p.Start, p.Path)
	}
	for _, want := range []string{"firmware.gc_streams", "firmware.gc_pace_percent", "firmware.read_command_ns", "firmware.write_command_ns"} {
		assert.Contains(t, paths, want)
	}
	assert.NotContains(t, paths, "firmware.gc_restore_to", "a field the drive leaves at 0 is not a default parameter")
}
