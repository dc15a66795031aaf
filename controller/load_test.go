package controller_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// presetText is what "ftlsim drives NAME" prints: the preset as an
// editable description.
func presetText(t *testing.T, name string) string {
	t.Helper()
	c, err := controller.Preset(name)
	require.NoError(t, err)
	b, err := c.Marshal()
	require.NoError(t, err)
	return string(b)
}

// lineOf is the 1-based line of the first line of text that starts with
// prefix (after indentation).
func lineOf(t *testing.T, text, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// loadAndResolve reads a description file and resolves it: the error of
// whichever step fails.
func loadAndResolve(file string) error {
	c, err := controller.LoadConfig(file)
	if err != nil {
		return err
	}
	_, err = c.Resolve()
	return err
}

// Every error about a description file names the file, the line and the
// field, states what is allowed, and is one line. Each case is a finding
// of a new user, or of the adversarial probes, that the loader of before
// got wrong.
func TestDescriptionFileErrors(t *testing.T) {
	base := presetText(t, "generic-mlc")
	geometryLine := lineOf(t, base, "geometry:")
	pageLine := lineOf(t, base, "page_bytes:")
	require.Greater(t, pageLine, geometryLine+3, "the broken line is well below the mapping that holds it")
	indent := strings.Replace(base, "    page_bytes:", "   page_bytes:", 1)
	cases := []struct {
		name, text string
		line       int
		want       []string
	}{
		// Reported at the line of "nand:" before: the parser's context,
		// not the line that broke it.
		{"indentation", indent, pageLine, []string{"YAML: did not find expected key", "indented"}},
		// Named neither field nor line before.
		{"bad size", strings.Replace(base, "write_buffer: 32MiB", "write_buffer: 64MB0", 1), lineOf(t, base, "write_buffer:"),
			[]string{"firmware.write_buffer = 64MB0", "allowed 0..1TiB"}},
		// Named no file before: both are found by Resolve, after loading.
		{"gc policy", strings.Replace(base, "gc_policy: greedy", "gc_policy: lru", 1), lineOf(t, base, "gc_policy:"),
			[]string{`firmware.gc_policy = "lru", allowed cost-benefit, d-choices:D, fifo, greedy, random`}},
		{"op percent", strings.Replace(base, "op_percent: 7", "op_percent: 700", 1), lineOf(t, base, "op_percent:"),
			[]string{"op_percent = 700, allowed 0..400"}},
		// Silently became 4 before.
		{"integer", strings.Replace(base, "channels: 8", "channels: 4.5", 1), lineOf(t, base, "channels:"),
			[]string{"nand.geometry.channels = 4.5: not a whole number, allowed 1..64"}},
		{"integer list", strings.Replace(base, "    read_ns: 50000", "    read_ns: 50000\n    read_ns_by_page: [40000, 60000.5]", 1),
			lineOf(t, base, "read_ns:") + 1, []string{"nand.timing.read_ns_by_page = [40000, 60000.5]: not a whole number"}},
		// Ignored before.
		{"second document", base + "---\nname: other\n", strings.Count(base, "\n") + 1,
			[]string{"a second YAML document", "base: NAME"}},
		{"unknown field", strings.Replace(base, "gc_low_water:", "gc_lowwater:", 1), lineOf(t, base, "gc_low_water:"),
			[]string{`firmware has no field "gc_lowwater"; did you mean firmware.gc_low_water?`}},
		{"out of range", strings.Replace(base, "queue_depth: 32", "queue_depth: 0", 1), lineOf(t, base, "queue_depth:"),
			[]string{"host.queue_depth = 0, allowed 1..65536"}},
		{"rule between fields", strings.Replace(base, "write_buffer: 32MiB", "write_buffer: 4KiB", 1), lineOf(t, base, "write_buffer:"),
			[]string{"firmware.write_buffer = 4096 bytes, allowed 69632 (two multi-plane pages and a unit) .. 1TiB"}},
		{"section as a value", strings.Replace(base, "host:\n", "host: sata\nx:\n", 1), lineOf(t, base, "host:"),
			[]string{"host is a section"}},
		{"nand rule", strings.Replace(base, "spare_bytes: 1280", "spare_bytes: 99999", 1), lineOf(t, base, "spare_bytes:"),
			[]string{"nand.geometry.spare_bytes = 99999, allowed 0..page_bytes (16384)"}},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.text)
			err := loadAndResolve(file)
			require.ErrorIs(t, err, controller.ErrConfig)
			msg := err.Error()
			require.NotContains(t, msg, "\n", "one line")
			require.True(t, strings.HasPrefix(msg, file+":"+strconv.Itoa(tc.line)+": invalid drive description: "), "%s\nwant line %d", msg, tc.line)
			for _, w := range tc.want {
				require.Contains(t, msg, w)
			}
		})
	}
}

// A value an option changed since the file was read is not blamed on the
// file.
func TestChangedValueNotBlamedOnFile(t *testing.T) {
	file := writeFile(t, t.TempDir(), "d.yaml", presetText(t, "generic-mlc"))
	c, err := controller.LoadConfig(file)
	require.NoError(t, err)
	c.Firmware.GCPolicy = "lru" // as --gc=lru does
	_, err = c.Resolve()
	require.ErrorIs(t, err, controller.ErrConfig)
	require.True(t, strings.HasPrefix(err.Error(), "invalid drive description: firmware.gc_policy"), err.Error())
}

// A description builds on another with base: the base's fields, with the
// description's merged over them.
func TestDescriptionBase(t *testing.T) {
	dir := t.TempDir()
	small, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	// A file built on a preset, changing one field and removing another.
	file := writeFile(t, dir, "mine.yaml", "base: generic-mlc-small\nname: mine\nfirmware:\n  gc_policy: fifo\n  read_suspend: ~\n")
	c, err := controller.LoadConfig(file)
	require.NoError(t, err)
	want := small
	want.Name, want.Firmware.GCPolicy, want.Firmware.ReadSuspend = "mine", "fifo", false
	requireSameDescription(t, want, c, "built on generic-mlc-small")
	// A file built on a file next to it, which builds on a preset; an
	// error in a field the base sets names the base's file and line.
	writeFile(t, dir, "mid.yaml", "base: generic-mlc\nname: mid\nhost:\n  queue_depth: 0\n")
	top := writeFile(t, dir, "top.yaml", "base: mid.yaml\nname: top\n")
	err = loadAndResolve(top)
	require.ErrorContains(t, err, filepath.Join(dir, "mid.yaml")+":4: invalid drive description: host.queue_depth = 0, allowed 1..65536")
	// Unknown bases and cycles.
	for _, tc := range []struct{ name, text, want string }{
		{"unknown.yaml", "name: x\nbase: no-such-drive\n", "unknown.yaml:2: invalid drive description: base: no-such-drive: neither a preset nor a readable file"},
		{"self.yaml", "base: self.yaml\n", "self.yaml:1: invalid drive description: base: " + filepath.Join(dir, "self.yaml") + " → " +
			filepath.Join(dir, "self.yaml") + ": descriptions built on each other in a cycle"},
		{"a.yaml", "base: b.yaml\n", "b.yaml:1: invalid drive description: base: " + filepath.Join(dir, "a.yaml") + " → " +
			filepath.Join(dir, "b.yaml") + " → " + filepath.Join(dir, "a.yaml") + ": descriptions built on each other in a cycle"},
		{"list.yaml", "base: [generic-mlc]\n", "list.yaml:1: invalid drive description: base: allowed the name of a preset"},
	} {
		writeFile(t, dir, "b.yaml", "base: a.yaml\n")
		p := writeFile(t, dir, tc.name, tc.text)
		_, err := controller.LoadConfig(p)
		require.ErrorIs(t, err, controller.ErrConfig, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
		require.NotContains(t, err.Error(), "\n")
	}
}

// The small generic preset is the generic one with a few fields changed:
// it says so with base, and loads to the drive it was when it was a copy.
func TestSmallPresetBuildsOnGeneric(t *testing.T) {
	small, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	big, err := controller.Preset("generic-mlc")
	require.NoError(t, err)
	want := big
	want.Name = "generic-mlc-small"
	want.Description = "generic 4-channel SATA 6 Gb/s MLC drive, 8 dies, 7 % spare (quick studies)"
	want.Capacity = 16 << 30
	want.NAND.Geometry.Channels, want.NAND.Geometry.TargetsPerChannel = 4, 1
	want.Firmware.WriteBuffer = 8 << 20
	requireSameDescription(t, want, small, "generic-mlc-small")
}

// The translation layer's own limits (found by ftl.Config.Validate, which
// names its Go fields) are reported as description errors: the field's
// YAML path, the file and the line.
func TestFTLLimitsNameTheField(t *testing.T) {
	base := presetText(t, "generic-mlc")
	text := strings.Replace(base, "gc_low_water: 2", "gc_low_water: 2000", 1)
	file := writeFile(t, t.TempDir(), "d.yaml", text)
	c, err := controller.LoadConfig(file)
	require.NoError(t, err)
	_, err = c.Check()
	require.ErrorIs(t, err, controller.ErrConfig)
	want := file + ":" + strconv.Itoa(lineOf(t, base, "gc_low_water:")) + ": invalid drive description: firmware.gc_low_water = 2000, allowed 1.."
	require.True(t, strings.HasPrefix(err.Error(), want), err.Error())
	_, err = controller.New(c)
	require.True(t, strings.HasPrefix(err.Error(), want), "New says the same: %s", err.Error())
	require.NotContains(t, err.Error(), "GCLowWater")

	qlc, err := controller.Preset("intel-660p-1024")
	require.NoError(t, err)
	_, err = qlc.Resized(32<<30, qlc.OPPercent).Check() // 8 dies of big blocks: too few groups for the cache and reserves
	require.ErrorIs(t, err, controller.ErrConfig)
	require.ErrorContains(t, err, "user capacity = ")
	require.ErrorContains(t, err, "raise op_percent or lower firmware.gc_low_water")
}
