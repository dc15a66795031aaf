package cli

// Zoned and placement jobs on the drive: a zonemode=zbd job needs a
// zoned drive and is checked against its zones; an FDP job against the
// placement identifiers the drive reports.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/workload"
)

// zonedPresets are the presets whose drives are zoned, sorted.
func zonedPresets() []string {
	var out []string
	for _, name := range controller.Presets() {
		cfg, err := controller.Preset(name)
		if err != nil {
			continue
		}
		if cfg.Firmware.Zoned.On() {
			out = append(out, name)
		}
	}
	return out
}

// zonedJobs reports whether a job of jf is zonemode=zbd.
func zonedJobs(jf *workload.JobFile) bool {
	for _, j := range jf.Jobs {
		if j.Job.ZBD.On {
			return true
		}
	}
	return false
}

// defaultZonedPreset is the drive a job file with zoned jobs and no
// --drive runs on: 256 MiB zones, as fio's zoned examples expect.
const defaultZonedPreset = "generic-nvme-zns"

// chooseZonedDrive makes a job file with zoned jobs and no --drive run on
// the default zoned preset, as fio pointed at a zoned device.
func chooseZonedDrive(o *options, jf *workload.JobFile) {
	if o.driveGiven || !zonedJobs(jf) {
		return
	}
	if z := zonedPresets(); slices.Contains(z, defaultZonedPreset) {
		o.drive = defaultZonedPreset
	} else if len(z) > 0 {
		o.drive = z[0]
	}
}

// layoutOf returns the zones drive c reports, nil on a conventional one.
func layoutOf(c *controller.Controller) *workload.ZoneLayout {
	z, ok := c.Zones()
	if !ok {
		return nil
	}
	return &workload.ZoneLayout{ZoneBytes: z.ZoneBytes, CapacityBytes: z.ZoneCapacity, Zones: z.Zones, MaxOpen: z.MaxOpen, MaxActive: z.MaxActive}
}

// checkZonedJobs checks each job's zone and placement options against
// drive c (named drive): a zoned job on a conventional drive is refused
// with a line naming the zoned presets.
func checkZonedJobs(jf *workload.JobFile, c *controller.Controller, drive string) error {
	layout := layoutOf(c)
	pids := c.PlacementIDs() // the reclaim unit handle status, as fio reads it
	for _, j := range jf.Jobs {
		where := fmt.Sprintf("%s:%d: [%s]", jf.Name, j.Line, j.Job.Name)
		if j.Job.ZBD.On && layout == nil {
			presets := "none yet"
			if z := zonedPresets(); len(z) > 0 {
				presets = strings.Join(z, ", ")
			}
			return fmt.Errorf("%s: %w: zonemode=zbd: drive %s is conventional, not a zoned block device; the zoned presets: %s (--drive=NAME)",
				where, workload.ErrOption, drive, presets)
		}
		if err := j.Job.CheckZones(layout); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := j.Job.ReadPlacementScheme(workload.ReadIncludedFile); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := j.Job.CheckPlacement(pids); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkScenarioPlacement refuses a scenario whose writers use placement
// handles on drive c (named drive) when it has no FDP, as fio fails
// without the drive's reclaim unit handle status (a job file's job runs
// without, with a note).
func checkScenarioPlacement(sc workload.Scenario, jobs []*workload.Job, c *controller.Controller, drive string) error {
	if c.PlacementIDs() != nil {
		return nil
	}
	for _, j := range jobs {
		if j.Placement.Mode == workload.PlacementFDP {
			return fmt.Errorf("%w: scenario %s: its writers use placement handles (--handles), but drive %s has no FDP (%s is 0): --handles=0, or an FDP drive (generic-nvme-fdp)",
				workload.ErrOption, sc.Name, drive, "firmware.fdp.handles")
		}
	}
	return nil
}
