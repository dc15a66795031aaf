package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// listedDrive is one preset as the drive list shows it: its row of
// columns, and the indented lines under it joined back into one text.
type listedDrive struct {
	row    string
	detail string
}

// parseDriveList splits the list into its header and its drives, by
// name; every line of it is checked against the width on the way.
func parseDriveList(t *testing.T, out string) (header string, list map[string]listedDrive, order []string) {
	t.Helper()
	list = map[string]listedDrive{}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	header = lines[0]
	var name string
	for i, line := range lines {
		require.LessOrEqual(t, utf8.RuneCountInString(line), 100, "line %d is wider than 100 columns: %q", i+1, line)
		if i == 0 {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			name = strings.Fields(line)[0]
			list[name] = listedDrive{row: line}
			order = append(order, name)
			continue
		}
		require.NotEmpty(t, name, "an indented line before any drive")
		d := list[name]
		d.detail = strings.TrimSpace(d.detail + " " + strings.TrimSpace(line))
		list[name] = d
	}
	return header, list, order
}

// TestDrivesListFitsWidth: every line of "ftlsim drives" fits 100
// columns, and every preset is there, in order, with its description and
// its GC policy, whole (wrapping loses no word).
func TestDrivesListFitsWidth(t *testing.T) {
	code, out, errOut := runCmd(t, "drives")
	require.Equal(t, exitOK, code, errOut)
	header, list, order := parseDriveList(t, out)
	require.Regexp(t, `^NAME +CAPACITY +SPARE +DIES +CH +CELL +PAGE +INTERFACE$`, header)
	require.Equal(t, controller.Presets(), order)
	for _, name := range order {
		c, err := controller.Preset(name)
		require.NoError(t, err)
		d := list[name]
		require.True(t, strings.HasPrefix(d.detail, strings.Join(strings.Fields(c.Description), " ")+" GC "+c.Firmware.GCPolicy),
			"%s: description then GC policy under the row, got %q", name, d.detail)
	}
}

// TestDrivesNameInterfaceAndCell: the list gives each drive's host
// interface and cell type, and names an SLC cache among the firmware's
// mechanisms.
func TestDrivesNameInterfaceAndCell(t *testing.T) {
	code, out, _ := runCmd(t, "drives")
	require.Equal(t, exitOK, code)
	_, list, _ := parseDriveList(t, out)
	for _, c := range []struct{ name, row, firmware string }{
		{"m4-256", `^m4-256 +256GB .* mlc +8 KiB +sata$`, "GC greedy; paced-gc, dram-map"},
		{"generic-nvme-hmb", `^generic-nvme-hmb +\S+ .* mlc +16 KiB +nvme-pcie3x4-8x1024$`, "GC greedy; paced-gc, map-cache-2MiB, hmb-64MiB"},
		{"970-evo-plus-1000", `^970-evo-plus-1000 +1TB .* tlc one-shot +16 KiB +nvme-pcie3x4-8x1024$`, ", slc-6GB+36GB-direct"},
		{"intel-660p-1024", `^intel-660p-1024 +1024GB .* qlc one-shot +16 KiB +nvme-pcie3x4-8x1024$`, ", map-cache-224MiB, slc-12GB+128GB-direct"},
		{"mx500-1000", `^mx500-1000 +1TB .* tlc one-shot +16 KiB +sata$`, ", dram-map, slc-3GB+42GB-direct"},
		{"solidigm-p41-plus-2048", `^solidigm-p41-plus-2048 +2048GB .* qlc one-shot +16 KiB +nvme-pcie4x4-8x1024$`, ", map-cache-2MiB, hmb-64MiB, slc-12GB+228GB-direct"},
	} {
		d, ok := list[c.name]
		require.True(t, ok, c.name)
		require.Regexp(t, c.row, d.row)
		require.Contains(t, d.detail, c.firmware, c.name)
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  string
	}{
		{"a b c", 10, "  a b c\n"},
		{"aaa bbb ccc", 9, "  aaa bbb\n    ccc\n"},
		{"aaa bbb ccc", 8, "  aaa\n    bbb\n    ccc\n"},
		{"toolongword x", 6, "  toolongword\n    x\n"},
		{" ", 6, ""},
		{"é é é", 5, "  é é\n    é\n"}, // runes, not bytes
	} {
		var b strings.Builder
		wrap(&b, c.text, "  ", "    ", c.width)
		require.Equal(t, c.want, b.String(), "%q at %d", c.text, c.width)
	}
}
