package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
)

// drives lists the presets, or prints one as an editable description.
func drives(args []string, w io.Writer) error {
	switch len(args) {
	case 0:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCAPACITY\tSPARE\tDIES\tCHANNELS\tPAGE\tGC\tDESCRIPTION")
		for _, name := range controller.Presets() {
			c, err := controller.Preset(name)
			if err != nil {
				return err
			}
			if err := c.Resolve(); err != nil {
				return fmt.Errorf("preset %s: %w", name, err)
			}
			g := c.NAND.Geometry
			fmt.Fprintf(tw, "%s\t%s\t%.1f %%\t%d\t%d\t%s\t%s\t%s\n", name, c.Capacity.String(),
				c.OPPercent, g.Dies(), g.Channels, units.FormatBytes(int64(g.PageBytes)), c.Firmware.GCPolicy, c.Description)
		}
		return tw.Flush()
	case 1:
		c, err := controller.Lookup(args[0])
		if err != nil {
			return err
		}
		// Show the spare area a product line's geometry gives, keeping the
		// description's geometry as it is (blocks_per_plane: 0 still means
		// "size the flash from capacity and op_percent").
		if r := c; r.Resolve() == nil {
			c.OPPercent = r.OPPercent
		}
		b, err := c.Marshal()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return usage("drives takes at most one name")
}
