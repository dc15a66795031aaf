package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// listWidth is the widest line the drive list prints.
const listWidth = 100

// drives lists the presets, or prints one as an editable description.
func drives(args []string, w io.Writer) error {
	switch len(args) {
	case 0:
		return listDrives(w)
	case 1:
		c, err := lookupDrive("drives", args[0])
		if err != nil {
			return err
		}
		// The description as given: its sizing says which sizes are
		// derived (a product line states the spare area its raw flash
		// leaves), so it loads back as the same drive.
		b, err := c.Marshal()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return usage("drives takes at most one name")
}

// listDrives writes the presets within listWidth columns: a row of
// columns a drive, then, indented, its description and its GC policy and
// firmware mechanisms, wrapped.
func listDrives(w io.Writer) error {
	rows := [][]string{{"NAME", "CAPACITY", "SPARE", "DIES", "CH", "CELL", "PAGE", "INTERFACE"}}
	var details [][]string
	for _, name := range controller.Presets() {
		c, err := controller.Preset(name)
		if err != nil {
			return err
		}
		r, err := c.Resolve()
		if err != nil {
			return fmt.Errorf("preset %s: %w", name, err)
		}
		g := r.Config.NAND.Geometry
		rows = append(rows, []string{name, capacityText(r.Config.Capacity), fmt.Sprintf("%.1f %%", r.SparePercent),
			strconv.Itoa(g.Dies()), strconv.Itoa(g.Channels), cellText(r.Config.NAND.Timing),
			units.FormatBytes(int64(g.PageBytes)), interfaceText(c.Host)})
		firmware := "GC " + c.Firmware.GCPolicy
		if f := features(c.Firmware); f != "" {
			firmware += "; " + strings.ReplaceAll(f, ",", ", ")
		}
		details = append(details, []string{c.Description, firmware})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for i, row := range rows {
		for j, cell := range row {
			if j < len(row)-1 {
				fmt.Fprintf(&b, "%-*s", widths[j]+2, cell)
			} else {
				b.WriteString(cell)
			}
		}
		b.WriteByte('\n')
		if i > 0 {
			for _, d := range details[i-1] {
				wrap(&b, d, "    ", "      ", listWidth)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap writes text in lines of at most width runes, breaking at spaces:
// the first line after indent, the others after more. A word longer than
// a line has it to itself; an empty text writes nothing.
func wrap(b *strings.Builder, text, indent, more string, width int) {
	if strings.TrimSpace(text) == "" {
		return
	}
	line, n := indent, utf8.RuneCountInString(indent)
	fresh := true
	for _, word := range strings.Fields(text) {
		wn := utf8.RuneCountInString(word)
		if !fresh && n+1+wn > width {
			b.WriteString(line + "\n")
			line, n, fresh = more, utf8.RuneCountInString(more), true
		}
		if !fresh {
			line += " "
			n++
		}
		line += word
		n += wn
		fresh = false
	}
	b.WriteString(line + "\n")
}

// interfaceText names a drive's host interface: "sata", or on NVMe
// "nvme-pcie3x4-8x1024" (PCIe generation and lanes, queues × depth), or
// "nvme-3426MBps-…" for a link given by its bandwidth.
func interfaceText(h controller.Host) string {
	if !h.IsNVMe() {
		return string(controller.SATA)
	}
	link := fmt.Sprintf("%dMBps", h.LinkMBps)
	if h.PCIeGen > 0 {
		link = fmt.Sprintf("pcie%dx%d", h.PCIeGen, h.PCIeLanes)
	}
	return fmt.Sprintf("nvme-%s-%dx%d", link, h.QueueCount(), h.QueueDepth)
}

// cellText names a part's cell type, and its programming when one-shot
// ("tlc", "qlc one-shot").
func cellText(t nand.Timing) string {
	if t.Program == nand.OneShot {
		return t.Cell.String() + " one-shot"
	}
	return t.Cell.String()
}

// features names a firmware's distinctive mechanisms, briefly.
func features(f controller.Firmware) string {
	var out []string
	if f.GCPaceWater > 0 {
		if f.GCPacePercent > 0 && f.GCPacePercent != 100 {
			out = append(out, fmt.Sprintf("paced-gc-%d%%", f.GCPacePercent))
		} else {
			out = append(out, "paced-gc")
		}
	}
	if f.GCRestoreTo > f.GCLowWater+1 {
		out = append(out, "deferred-gc")
	}
	if f.GCStreams > 0 {
		out = append(out, fmt.Sprintf("gc-streams-%d", f.GCStreams))
	}
	if f.GCCopyback {
		out = append(out, "gc-copyback")
	}
	if f.GCUnitNs > 0 || f.ECCMBps > 0 || f.GCVictimNs > 0 {
		out = append(out, "gc-cost")
	}
	if f.Cores > 1 {
		out = append(out, fmt.Sprintf("cores-%d", f.Cores))
	}
	if f.Compression {
		out = append(out, "compression")
	}
	if f.CompressOutMBps > 0 {
		out = append(out, fmt.Sprintf("compress-out-%dMBps", f.CompressOutMBps))
	}
	if f.RaiseStripe > 0 {
		out = append(out, fmt.Sprintf("raise-1/%d", f.RaiseStripe))
	}
	if f.MapCache > 0 {
		out = append(out, "map-cache-"+f.MapCache.String())
		if f.HMB > 0 {
			out = append(out, "hmb-"+f.HMB.String())
		}
	} else {
		out = append(out, "dram-map")
	}
	if f.TrimBacklog > 0 {
		out = append(out, "trim-backlog-"+f.TrimBacklog.String())
	}
	if c := f.SLCCache; c.Static+c.DynamicMax > 0 {
		// "slc-6GB+36GB": the static and the most dynamic cache, and
		// "-direct" when writes bypass a full cache.
		slc := "slc-" + c.Static.String() + "+" + c.DynamicMax.String()
		if c.WhenFull == "direct" {
			slc += "-direct"
		}
		out = append(out, slc)
	}
	return strings.Join(out, ",")
}

// capacityText writes a capacity as drive makers do, in decimal GB (with
// decimals when the capacity was rounded down to whole mapping units).
func capacityText(s controller.Size) string {
	if int64(s)%1e9 == 0 {
		return s.String()
	}
	return fmt.Sprintf("%.2fGB", float64(s)/1e9)
}

// lookupDrive returns the drive description called name, given as option
// (--drive, or the drives command): a preset, or else a description file.
// A folder, a file that cannot be read and a bad description are input
// errors that name the option.
func lookupDrive(option, name string) (controller.Config, error) {
	given := option + " " + name
	if strings.HasPrefix(option, "--") {
		given = option + "=" + name
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		if _, err := controller.Preset(name); err != nil { // a preset's name wins, as in controller.Lookup
			return controller.Config{}, usage("%s: is a folder; allowed a preset name (ftlsim drives lists them) or a drive description file", given)
		}
	}
	cfg, err := controller.Lookup(name)
	if err != nil && !errors.Is(err, controller.ErrConfig) {
		return cfg, usage("%s: %w", given, err)
	}
	return cfg, err
}
