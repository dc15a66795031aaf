// Command znstax shows the block-interface tax on one flash: a
// log-structured store — writers each appending to a zone of their own
// at different rates and, when the store is full, resetting their oldest
// zone (what fio's zbd-rand-write-zone-reset-gc.fio does) — on the
// flash of generic-nvme at a capacity and 7 % spare, as that
// conventional drive and as one with 28 % spare (a TRIM where the zoned
// drive resets), and as the ZNS preset's zoned namespace: as the preset
// is (every zone striped over all the dies, a write point per active
// zone), with one write point (write_points: 1, the zones written at once
// interleaved in each die's open group, as a conventional drive's host
// data is), with each writer's zones on dies of their own (zone_dies:
// dies / writers) and a ZNS firmware's collection threshold, and the
// same with as many zones as the flash holds. It prints each drive's usable capacity, device write
// amplification and write throughput, after a warm-up of two drive
// writes, over one drive write more:
//
//	go run ./examples/znstax                   # 64 GiB of flash: a few minutes
//	go run ./examples/znstax -capacity=16GiB   # quicker
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

func main() {
	capacity := flag.String("capacity", "64GiB", "the ZNS drive's capacity, which sets the flash all the drives share")
	writers := flag.Int("writers", 4, "writers appending at once")
	flag.Parse()
	c, err := units.ParseSize(*capacity, true)
	if err == nil {
		err = run(os.Stdout, c, *writers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "znstax:", err)
		os.Exit(1)
	}
}

// Drive is one drive of the comparison and what the store did on it.
type Drive struct {
	Name          string
	CapacityBytes int64
	WA            float64 // device write amplification over the measured drive write
	WriteMBps     float64 // host write throughput over it, 10^6 bytes/s
	Resets        int64   // zones reset (zoned) or trimmed (conventional) over it
	Cut           bool    // the measured drive write did not finish in its time
}

// Compare builds the flash of generic-nvme-zns's conventional twin
// (generic-nvme) at capacity bytes and 7 % spare, and runs the store on
// it as that conventional drive, as one with 28 % spare (the same flash,
// less capacity), and as the ZNS preset's zoned namespace of as many
// zones as the flash holds beside what the FTL keeps for itself — with
// zones striped over every die, and with each writer's zones on dies of
// their own.
func Compare(capacity int64, writers int) ([]Drive, error) {
	zns, err := controller.Preset("generic-nvme-zns")
	if err != nil {
		return nil, err
	}
	zoned := zns.Firmware.Zoned
	zfw := func(c *controller.Config) {
		c.Firmware.Zoned = zoned
		c.Firmware.GCLowWater, c.Firmware.GCHighWater, c.Firmware.GCPaceWater = zfwLow, zfwLow+1, 0
	}
	zoneBytes := int64(zoned.ZoneSize)
	conv := zns
	conv.Firmware.Zoned = controller.Zoned{}
	r, err := conv.Resized(controller.Size(capacity), 7).Resolve()
	if err != nil {
		return nil, err
	}
	flash := r.Config // SizeSpare: the geometry is fixed from here on
	dies := flash.NAND.Geometry.Dies()
	if writers < 1 || dies%writers != 0 {
		return nil, fmt.Errorf("%d writers: allowed a divisor of the %d dies", writers, dies)
	}
	onFlash := func(name string, edit func(c *controller.Config) error) (controller.Config, error) {
		c := flash
		if err := edit(&c); err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		r, err := c.Resolve()
		if err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		return r.Config, nil
	}
	var drives []struct {
		name string
		cfg  controller.Config
	}
	add := func(name string, c controller.Config) {
		drives = append(drives, struct {
			name string
			cfg  controller.Config
		}{name, c})
	}
	// The zoned namespace as large as the 7 % drive, and with the most
	// whole zones the FTL takes on this flash (it keeps each die's open,
	// reserve and cleaning groups): the capacity ZNS gives back.
	preset, err := onFlash("ZNS", func(c *controller.Config) error {
		c.Firmware.Zoned, c.OPPercent = zoned, 0
		return nil
	})
	if err != nil {
		return nil, err
	}
	same, err := onFlash("ZNS", func(c *controller.Config) error {
		zfw(c)
		c.OPPercent = 0
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The most zones: each die keeps, beside its zones' blocks, its host
	// and GC open groups, the collection threshold (gc_low_water) and a
	// group to clean with, so that a full drive never collects; each
	// writer's die set holds as many zones as the others.
	g := flash.NAND.Geometry
	groupBytes := g.BlockBytes() * int64(g.PlanesPerDie)
	perDie := zoneBytes / int64(dies/writers) / groupBytes // groups a zone takes on each die of its set
	keep := int64(2 + zfwLow + 1)
	most := same
	if perDie > 0 {
		n := (int64(g.BlocksPerPlane) - keep) / perDie * int64(writers)
		most, err = onFlash("ZNS, all the flash holds", func(c *controller.Config) error {
			zfw(c)
			c.Capacity, c.OPPercent = controller.Size(n*zoneBytes), 0
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	own := func(c controller.Config) controller.Config {
		c.Firmware.Zoned.ZoneDies = dies / writers
		return c
	}
	one := preset
	one.Firmware.Zoned.WritePoints = 1
	add("ZNS preset (zones over all dies)", preset)
	add("the preset with one write point", one)
	add(fmt.Sprintf("ZNS, a writer's zones on %d dies", dies/writers), own(same))
	if most.Capacity > same.Capacity {
		add("the same, all the flash holds", own(most))
	}
	for _, op := range []float64{7, 28} {
		name := fmt.Sprintf("conventional, %.0f %% spare", op)
		c, err := onFlash(name, func(c *controller.Config) error {
			c.Sizing, c.OPPercent, c.Capacity = controller.SizeCapacity, op, 0
			r, err := c.Resolve()
			if err != nil {
				return err
			}
			// Whole zone-sized ranges, as the store uses them; the
			// geometry gives the spare that rounding leaves.
			*c = r.Config
			c.Capacity = c.Capacity / controller.Size(zoneBytes) * controller.Size(zoneBytes)
			c.OPPercent = 0
			return nil
		})
		if err != nil {
			return nil, err
		}
		add(name, c)
	}
	var out []Drive
	for _, d := range drives {
		res, err := measure(d.cfg, zoneBytes, writers)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		res.Name = d.name
		out = append(out, res)
	}
	return out, nil
}

// zfwLow is the ZNS firmware's collection threshold, in free groups a
// die: zone data is never collected (a reset frees whole blocks), so it
// keeps only what a die needs to go on writing.
const zfwLow = 1

// measure runs the store on drive cfg: two drive writes of warm-up, then
// one measured.
func measure(cfg controller.Config, zoneBytes int64, writers int) (Drive, error) {
	c, err := controller.New(cfg)
	if err != nil {
		return Drive{}, err
	}
	e := sim.New(c)
	s := newStore(c, zoneBytes, writers)
	// Each run stops at a drive write or after a drive write's time at
	// 20 MB/s, whichever comes first.
	o := sim.Options{Name: "store", QueueDepth: 8 * writers, RuntimeNs: s.capacity / 20 * 1000}
	s.budget = 2 * s.capacity
	if _, err := e.Run(s, o); err != nil {
		return Drive{}, err
	}
	o.RuntimeNs /= 2
	s.budget, s.resets = s.capacity, 0
	res, err := e.Run(s, o)
	if err != nil {
		return Drive{}, err
	}
	return Drive{CapacityBytes: c.CapacityBytes(), WA: res.Device.WriteAmplification, WriteMBps: res.Write.BWBytes / 1e6, Resets: s.resets,
		Cut: s.budget > 0}, nil
}

// store is the log-structured store as a request source. Writer w owns
// the zones ≡ w (mod writers) — with zones on die sets (zone i on set i
// mod sets, sets = writers), the zones on its set — and appends to one
// of them, w+1 writes of 128 KiB a turn, so that the writers fill their
// zones at different rates (writer 3 four times as fast as writer 0); a
// writer whose zone is full takes a never-written zone of its own, or
// resets (on a conventional drive, trims) its zone written longest ago.
type store struct {
	zoned          bool
	zoneBytes      int64 // distance between zone starts (the namespace's)
	zoneCap        int64 // bytes a zone holds
	zones, writers int
	capacity       int64
	zone, wp       []int64   // per writer: its zone and the bytes written in it
	fresh          []int64   // per writer: its next never-written zone
	full           [][]int64 // per writer: its full zones, oldest first
	next, burst    int       // the writer whose turn it is, and its writes left this turn
	budget, resets int64     // bytes left to write in this run; resets (trims) issued
}

const storeBS = 128 << 10

func newStore(c *controller.Controller, zoneBytes int64, writers int) *store {
	s := &store{zoneBytes: zoneBytes, zoneCap: zoneBytes, capacity: c.CapacityBytes(), writers: writers,
		zone: make([]int64, writers), wp: make([]int64, writers), fresh: make([]int64, writers), full: make([][]int64, writers), burst: 1}
	if info, ok := c.Zones(); ok {
		s.zoned, s.zoneCap, s.zones = true, info.ZoneCapacity, info.Zones
		s.capacity = int64(info.Zones) * info.ZoneCapacity
	} else {
		s.zones = int(s.capacity / zoneBytes)
	}
	for w := range writers {
		s.zone[w], s.fresh[w] = int64(w), int64(w+writers)
	}
	return s
}

// Next issues the next writer's next write, or the reset it needs first.
func (s *store) Next(it *workload.Item) bool {
	if s.budget <= 0 {
		return false
	}
	w := s.next
	*it = workload.Item{}
	if s.wp[w] == s.zoneCap {
		s.full[w] = append(s.full[w], s.zone[w])
		s.wp[w] = 0
		if s.fresh[w] < int64(s.zones) {
			s.zone[w] = s.fresh[w]
			s.fresh[w] += int64(s.writers)
		} else {
			z := s.full[w][0]
			s.full[w] = append(s.full[w][:0], s.full[w][1:]...)
			s.zone[w] = z
			s.resets++
			if s.zoned {
				it.Op, it.Zone, it.Offset = blockio.ZoneManage, blockio.ZoneReset, z*s.zoneBytes
			} else {
				it.Op, it.Offset, it.Length = blockio.Trim, z*s.zoneBytes, s.zoneCap
			}
			return true
		}
	}
	it.Op, it.Offset, it.Length, it.Token = blockio.Write, s.zone[w]*s.zoneBytes+s.wp[w], storeBS, uint32(w+1)
	s.wp[w] += storeBS
	s.budget -= storeBS
	if s.burst--; s.burst == 0 {
		s.next = (w + 1) % s.writers
		s.burst = s.next + 1
	}
	return true
}

func run(w io.Writer, capacity int64, writers int) error {
	ds, err := Compare(capacity, writers)
	if err != nil {
		return err
	}
	return report(w, capacity, writers, ds)
}

// report prints the comparison as a table.
func report(w io.Writer, capacity int64, writers int, ds []Drive) error {
	fmt.Fprintf(w, "A log-structured store of %d writers (128 KiB appends, the oldest zone reset) on one flash: generic-nvme-zns at %s\n\n",
		writers, units.FormatBytes(capacity))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "drive\tusable capacity\tvs 7 % spare\tdevice WA\twrite MB/s\tresets or trims\t")
	var base int64
	for _, d := range ds {
		if d.Name == "conventional, 7 % spare" {
			base = d.CapacityBytes
		}
	}
	cut := false
	for _, d := range ds {
		mark := ""
		if d.Cut {
			mark, cut = " *", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%+.1f %%\t%.3f\t%.0f%s\t%d\t\n", d.Name, units.FormatBytes(d.CapacityBytes),
			100*(float64(d.CapacityBytes)/float64(base)-1), d.WA, d.WriteMBps, mark, d.Resets)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cut {
		fmt.Fprintln(w, "\n* below 20 MB/s: the measured drive write was cut short")
	}
	return nil
}
