package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
	"github.com/ftlsim/ftlsim/workload/trace"
)

// describeDrive is a one-line summary of a built drive, with a warning
// line after it for each of the drive's warnings (controller.Warning).
func describeDrive(c *controller.Controller) string {
	g := sim.GeometryOf(c)
	cfg := c.Config()
	s := fmt.Sprintf("%s: %s user, %s flash (%.2f %% spare, %.2f %% effective), %d dies on %d channels, %d planes, %s pages, %d pages/block, %s GC",
		cfg.Name, units.FormatBytes(g.UserBytes), units.FormatBytes(g.PhysicalBytes), g.OPPercent, c.FTL().SpareBudget().EffectivePercent(),
		g.Dies, g.Channels, g.Planes, units.FormatBytes(int64(g.PageBytes)), g.PagesPerBlock, cfg.Firmware.GCPolicy)
	if z, ok := c.Zones(); ok {
		s += fmt.Sprintf("; zoned: %d zones of %s (%s writable), %s open, %s active", z.Zones, units.FormatBytes(z.ZoneBytes),
			units.FormatBytes(z.ZoneCapacity), zoneLimit(z.MaxOpen), zoneLimit(z.MaxActive))
	}
	if g.BadBlocks > 0 {
		s += fmt.Sprintf("; %d factory bad blocks (%d plane groups retired)", g.BadBlocks, g.RetiredGroups)
	}
	for _, w := range c.Warnings() {
		s += "\nwarning: " + w.String()
	}
	return s
}

func writeText(w io.Writer, o *options, c *controller.Controller, r *sim.Result, prep prepared, wall time.Duration, ts *trace.Source) {
	writeDriveText(w, o, c, prep)
	j := o.job
	if ts != nil {
		s := ts.Summary()
		mode := fmt.Sprintf("open loop at the recorded times, %gx", o.speedup)
		if j.IODepth > 0 {
			mode = fmt.Sprintf("closed loop at queue depth %d", j.IODepth)
		}
		fmt.Fprintf(w, "%s: replay of %s (%s): %d requests (%.1f %% reads, %s read, %s written, %d flushes), %s (%s), %d wrapped, %d empty skipped, %.1f s recorded; %s\n",
			j.Name, o.traceFile, o.given["format"], s.Records, 100*s.ReadShare(), units.FormatBytes(s.ReadBytes), units.FormatBytes(s.WriteBytes),
			s.Flushes, plural(s.Devices, "device"), o.devices, s.Wrapped, s.Skipped, float64(s.DurationNs)/1e9, mode)
		writeResults(w, r)
	} else {
		writeJobText(w, o, r)
	}
	writeDiskStats(w, fioreport.SumDiskUtil(o.drive, fioreport.JobOf(r, nil)))
	ios := r.Read.IOs + r.Write.IOs + r.Trim.IOs
	fmt.Fprintf(w, "simulated %.1f s in %.2f s of wall time (%.0f host I/Os per second)\n",
		float64(r.EndNs-r.StartNs)/1e9, wall.Seconds(), float64(ios)/max(wall.Seconds(), 1e-9))
}

// writeDriveText describes the drive and its preparation.
func writeDriveText(w io.Writer, o *options, c *controller.Controller, prep prepared) {
	fmt.Fprintf(w, "drive %s\n", describeDrive(c))
	done := fmt.Sprintf("%.1f s simulated", float64(prep.ns)/1e9)
	if prep.stopped {
		done = fmt.Sprintf("stopped after %.1f s simulated: interrupted before it finished", float64(prep.ns)/1e9)
	}
	switch o.precondition.Kind {
	case workload.PreconditionFill:
		fmt.Fprintf(w, "precondition: sequential fill (%s)\n", done)
	case workload.PreconditionTorture:
		fmt.Fprintf(w, "precondition: fill, then %s of 4 KiB random writes at QD 32 (%s)\n",
			time.Duration(o.precondition.TortureNs), done)
	case workload.PreconditionSeason:
		fmt.Fprintf(w, "precondition: seasoned: fill, then a disk image restored sector by sector over every LBA in LBA order, %s writes (%s)\n",
			workload.SeasonImageBS, done)
	}
}

// writeJobText describes a generated job and its results.
func writeJobText(w io.Writer, o *options, r *sim.Result) {
	j := o.job
	sizes := func(l []workload.BlockSize) string {
		bs := make([]string, len(l))
		for i, b := range l {
			bs[i] = fmt.Sprintf("%s/%g%%", units.FormatBytes(b.Bytes), b.Percent)
		}
		return strings.Join(bs, ":")
	}
	bs := sizes(j.BS)
	if j.BSDir[1] != nil || j.BSDir[2] != nil {
		bs = "read " + bs + ", write " + sizes(j.Sizes(1)) + ", trim " + sizes(j.Sizes(2))
	}
	fmt.Fprintf(w, "%s: rw=%s, bs=%s, iodepth=%d, range %s at offset %s, random_distribution=%s, randseed=%d\n",
		j.Name, j.Pattern, bs, j.IODepth, units.FormatBytes(j.Size), units.FormatBytes(j.Offset), j.Distribution, j.RandSeed)
	if p := j.Placement; p.PIDs != nil {
		fmt.Fprintf(w, "  placement: writes carry %s\n", placementLine(p))
	}
	writeResults(w, r)
}

// writeResults prints a run's statistics as fio's normal output does.
func writeResults(w io.Writer, r *sim.Result) {
	if r.Interrupted {
		fmt.Fprintf(w, "  interrupted: stopped after %.1f s of simulated time (SIGINT or SIGTERM); the figures are those of the I/Os done until then\n",
			float64(r.EndNs-r.StartNs)/1e9)
	}
	if r.RateNotReached != "" {
		fmt.Fprintf(w, "  %s\n", r.RateNotReached)
	}
	for _, d := range []struct {
		name string
		s    sim.DirStats
	}{{"read", r.Read}, {"write", r.Write}, {"trim", r.Trim}} {
		if d.s.IOs == 0 {
			continue
		}
		post := ""
		if r.ZBD {
			post = fmt.Sprintf("; %d zone resets", r.ZoneResets) // fio's zbd_write_status
		}
		fmt.Fprintf(w, "  %s: IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s)(%s/%dmsec)%s\n", d.name, d.s.IOPS,
			d.s.BWBytes/(1<<20), d.s.BWBytes/1e6, units.FormatBytes(d.s.Bytes), r.RuntimeNs/1e6, post)
		l := d.s.Latency
		fmt.Fprintf(w, "    clat (usec): min=%.1f, max=%.1f, avg=%.1f, stdev=%.1f\n",
			float64(l.Min)/1e3, float64(l.Max)/1e3, l.Mean/1e3, l.Stdev/1e3)
		if r.NoPercentiles {
			continue
		}
		keys := make([]float64, 0, len(l.Percentiles))
		for p := range l.Percentiles {
			keys = append(keys, p)
		}
		sort.Float64s(keys)
		kind := "clat"
		if r.LatPercentiles {
			kind = "lat"
		}
		fmt.Fprintf(w, "     %s percentiles (usec):", kind)
		for i, p := range keys {
			if i%4 == 0 {
				fmt.Fprint(w, "\n     |")
			}
			label := fmt.Sprintf("%6.2f", p)
			if math.Round(p*100) != p*100 { // 99.999: every digit
				label = strconv.FormatFloat(p, 'f', -1, 64)
			}
			fmt.Fprintf(w, " %sth=[%d],", label, l.Percentiles[p]/1e3)
		}
		fmt.Fprintln(w)
	}
	if sy := r.Sync; sy.IOs > 0 {
		// fio's sync line: the FLUSH commands and how long they took.
		fmt.Fprintf(w, "  sync (FLUSH): %d, lat (usec): min=%.1f, max=%.1f, avg=%.1f, stdev=%.1f\n",
			sy.IOs, float64(sy.Latency.Min)/1e3, float64(sy.Latency.Max)/1e3, sy.Latency.Mean/1e3, sy.Latency.Stdev/1e3)
	}
	for _, pl := range r.PowerLosses {
		fmt.Fprintf(w, "  power loss at %.3f s: %s\n", float64(pl.AtNs-r.StartNs)/1e9, powerLossText(pl))
	}
	if r.AbortedIOs > 0 {
		fmt.Fprintf(w, "  %d commands failed with the power\n", r.AbortedIOs)
	}
	if v := r.Verify; v.Reads > 0 {
		if v.Mismatches == 0 {
			fmt.Fprintf(w, "  verify: read back %s in %d reads; every block holds the job's last write\n", units.FormatBytes(v.Bytes), v.Reads)
		} else {
			fmt.Fprintf(w, "  verify: read back %s in %d reads; %d units do not hold the job's last write (the first at offset %d)\n",
				units.FormatBytes(v.Bytes), v.Reads, v.Mismatches, v.FirstMismatch)
		}
	}
	dv := r.Device
	fmt.Fprintf(w, "  device: write amplification %.3f; host wrote %s, NAND programmed %s, read %s; GC moved %d units in %d runs (%d in background); %d erases; free blocks min %d, end %d\n",
		dv.WriteAmplification, units.FormatBytes(dv.HostWriteBytes), units.FormatBytes(dv.NANDWriteBytes), units.FormatBytes(dv.NANDReadBytes),
		dv.GCCopiedUnits, dv.GCRuns, dv.BackgroundGCRuns, dv.Erases, dv.FreeBlocksMin, dv.FreeBlocksEnd)
	if f := dv.FDP; f != nil {
		fmt.Fprintf(w, "  fdp: %s\n", fdpLine(f))
	}
	if ss := r.SteadyState; ss != nil {
		f := fioreport.Steady(ss)
		attained := "no"
		if ss.Attained {
			attained = "yes"
		}
		_, limit, _ := strings.Cut(f.SS, ":")
		fmt.Fprintf(w, "  steadystate: attained=%s over %d s, iops=%d, bw=%d KiB/s, %s=%s (limit %s)\n",
			attained, ss.DurationNs/1e9, f.Data.IOPSMean, f.Data.BWMean, ss.Criterion, f.Criterion, limit)
	}
	if dv.UnwrittenReadUnits > 0 {
		fmt.Fprintf(w, "  reads: %.1f %% of the units read held no data (never written or trimmed): the drive answered them without reading flash\n",
			100*float64(dv.UnwrittenReadUnits)/float64(max(1, dv.HostReadUnits)))
	}
	if dv.StoredBytes != dv.HostWriteBytes || dv.ParityBytes > 0 || dv.MapReads > 0 || dv.TrimIgnoredBytes > 0 {
		fmt.Fprintf(w, "  firmware: data stored at %.1f %% of its size (%d units deduplicated); RAISE parity %s; mapping pages read %d, written %d; TRIM dropped %s\n",
			100*dv.CompressionRatio(), dv.DedupedUnits, units.FormatBytes(dv.ParityBytes), dv.MapReads, dv.MapWrites, units.FormatBytes(dv.TrimIgnoredBytes))
	}
	if l := faultLine(r); l != "" {
		fmt.Fprintf(w, "  faults: %s\n", l)
	}
	secs := float64(r.RuntimeNs) / 1e9
	fmt.Fprintf(w, "  average data rate: read %.1f MB/s, write %.1f MB/s, combined %.1f MB/s\n",
		float64(r.Read.Bytes)/secs/1e6, float64(r.Write.Bytes)/secs/1e6, float64(r.Read.Bytes+r.Write.Bytes)/secs/1e6)
	fmt.Fprintf(w, "  power: average %.2f W, peak %.2f W (idle %.2f W), %.1f J, %.2f J per GB written\n",
		r.Power.AverageW, r.Power.PeakW, r.Power.IdleW, r.Power.EnergyJ, r.Power.JoulesPerGBWritten)
	fmt.Fprintf(w, "  busy %.1f s (idle excluded), average service time %.1f us; erase counts %d..%d (%.4f %% of rated life used)\n",
		float64(r.BusyNs)/1e9, r.AvgServiceNs/1e3, dv.Wear.Min, dv.Wear.Max, 100*dv.Wear.Life)
}

// writeDiskStats writes fio's "Disk stats" lines for the simulated drive.
func writeDiskStats(w io.Writer, d fioreport.DiskUtil) {
	fmt.Fprintf(w, "\nDisk stats (read/write):\n  %s: ios=%d/%d, sectors=%d/%d, merge=%d/%d, ticks=%d/%d, in_queue=%d, util=%.2f%%\n",
		d.Name, d.ReadIOs, d.WriteIOs, d.ReadSectors, d.WriteSectors, d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
}

// faultLine describes a run's read errors, bad blocks and read reclaim
// ("" when there were none).
func faultLine(r *sim.Result) string {
	dv := r.Device
	if dv.ReadRetries+dv.UncorrectableReads+dv.GrownBadGroups+dv.ReclaimedGroups+dv.UnreadableUnits+r.IOErrors == 0 {
		return ""
	}
	return fmt.Sprintf("%d read-retry steps (%d reads retried), %d reads uncorrectable (%d rebuilt from RAISE parity), %d units the host read failed (%d reads: EIO, UBER %.2g), %d units lost by GC, %d groups read-reclaimed, %d groups retired for blocks gone bad",
		dv.ReadRetries, dv.RetriedReads, dv.UncorrectableReads, dv.ParityRebuilds, dv.FailedReads, r.IOErrors, dv.UBER, dv.UnreadableUnits, dv.ReclaimedGroups, dv.GrownBadGroups)
}

// powerLossText says what a power cut lost and what mounting took.
func powerLossText(pl controller.PowerLossReport) string {
	zones := ""
	if pl.ZonesClosed+pl.ZonesRolledBack > 0 {
		zones = fmt.Sprintf("; zones: %d open closed, %d write pointers moved back over %s", pl.ZonesClosed, pl.ZonesRolledBack, units.FormatBytes(pl.ZoneRollbackBytes))
	}
	if pl.Protected {
		return fmt.Sprintf("the drive has power-loss protection: nothing lost; mounted in %.1f ms", float64(pl.MountNs)/1e6) + zones
	}
	ckpt := ""
	if pl.CheckpointPages > 0 {
		ckpt = fmt.Sprintf("%d mapping checkpoint pages read, ", pl.CheckpointPages)
	}
	return fmt.Sprintf("acknowledged data lost: %s made durable by a flush, %s not flushed but on flash (%d lower pages destroyed by interrupted upper-page programs), %s not yet on flash; %d programs unfinished (%d not started), %d erases undone, %d groups still erased freed; mounted in %.1f ms (%s%d pages scanned, %d mapping entries rebuilt)",
		units.FormatBytes(pl.LostFlushedBytes), units.FormatBytes(pl.LostProgrammedBytes), pl.CorruptedPages, units.FormatBytes(pl.LostVolatileBytes),
		pl.UnfinishedPages, pl.UnstartedPages, pl.UnerasedGroups, pl.FreedGroups, float64(pl.MountNs)/1e6, ckpt, pl.ScannedPages, pl.Entries) + zones
}

// plural is "1 device", "2 devices".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// zoneLimit prints a zone limit ("no limit" for 0).
func zoneLimit(n int) string {
	if n == 0 {
		return "no limit"
	}
	return fmt.Sprint(n)
}

// placementLine says which placement identifiers a job's writes carry.
func placementLine(p workload.Placement) string {
	kind := "FDP placement identifiers"
	if p.Mode == workload.PlacementStreams {
		kind = "stream identifiers"
	}
	ids := make([]string, len(p.PIDs))
	for i, id := range p.PIDs {
		ids[i] = strconv.Itoa(int(id))
	}
	switch {
	case p.Scheme:
		return fmt.Sprintf("%s by offset (plid_select=scheme, %d ranges of %s)", kind, len(p.SchemeRanges), p.SchemeFile)
	case p.Random:
		return fmt.Sprintf("%s %s, one at random each write (plid_select=random)", kind, strings.Join(ids, ","))
	}
	return fmt.Sprintf("%s %s in turn (plid_select=roundrobin)", kind, strings.Join(ids, ","))
}

// fdpLine is the FDP statistics log of a run as one line: media over
// host bytes, and each handle's host bytes (the handles the run wrote
// nothing through left out).
func fdpLine(f *sim.FDPStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "media/host bytes %.3f (host %s, media %s, erased %s); host bytes by handle:", float64(f.MediaBytesWritten)/float64(max(1, f.HostBytesWithMetadataWritten)),
		units.FormatBytes(f.HostBytesWithMetadataWritten), units.FormatBytes(f.MediaBytesWritten), units.FormatBytes(f.MediaBytesErased))
	var by []string
	for _, h := range f.Handles {
		if h.HostBytesWithMetadataWritten > 0 {
			by = append(by, fmt.Sprintf("%d: %s", h.Handle, units.FormatBytes(h.HostBytesWithMetadataWritten)))
		}
	}
	if by == nil {
		by = []string{"none"}
	}
	fmt.Fprintf(&b, " %s", strings.Join(by, ", "))
	if f.InvalidPlacementIdentifiers > 0 {
		fmt.Fprintf(&b, "; %d Invalid Placement Identifier events", f.InvalidPlacementIdentifiers)
	}
	return b.String()
}
