package controller_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
)

// TestPCIeLinkMBps: lanes × transfer rate × line code × efficiency, in
// MB/s each way. Generations 1–2 code 8b/10b, 3–5 128b/130b.
func TestPCIeLinkMBps(t *testing.T) {
	for _, tc := range []struct {
		gen, lanes, eff int
		want            int64
	}{
		{1, 1, 100, 250},      // 2.5 GT/s × 8/10 / 8
		{1, 1, 0, 217},        // at the default 87 %
		{2, 4, 100, 2000},     // 5 GT/s × 4 × 8/10 / 8
		{3, 1, 100, 984},      // 8 GT/s × 128/130 / 8
		{3, 2, 90, 1772},      //
		{3, 4, 100, 3938},     //
		{3, 4, 87, 3426},      // generic-nvme
		{4, 4, 100, 7876},     // 16 GT/s
		{4, 4, 0, 6852},       //
		{5, 16, 100, 63015},   // 32 GT/s × 16
		{5, 16, 87, 54823},    //
		{5, 16, 1, 630},       // the least efficiency allowed
		{2, 8, 100, 2 * 2000}, // twice the lanes, twice the bandwidth
	} {
		got, err := controller.PCIeLinkMBps(tc.gen, tc.lanes, tc.eff)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "gen %d ×%d at %d %%", tc.gen, tc.lanes, tc.eff)
	}
	for _, tc := range []struct {
		gen, lanes, eff int
		field           string
	}{
		{0, 4, 0, "host.pcie_gen = 0, allowed 1..5"},
		{6, 4, 0, "host.pcie_gen = 6, allowed 1..5"},
		{3, 3, 0, "host.pcie_lanes = 3, allowed 1, 2, 4, 8 or 16"},
		{3, 32, 0, "host.pcie_lanes = 32"},
		{3, 4, 101, "host.pcie_efficiency_percent = 101, allowed 1..100"},
		{3, 4, -1, "host.pcie_efficiency_percent = -1"},
	} {
		_, err := controller.PCIeLinkMBps(tc.gen, tc.lanes, tc.eff)
		require.ErrorIs(t, err, controller.ErrConfig)
		require.ErrorContains(t, err, tc.field)
	}
}

// TestNVMeResolve: an NVMe drive's link follows from its PCIe link unless
// link_mbps is given; the resolved description keeps it and resolves to
// itself.
func TestNVMeResolve(t *testing.T) {
	c, err := controller.Preset("generic-nvme")
	require.NoError(t, err)
	require.Zero(t, c.Host.LinkMBps)
	r, err := c.Resolve()
	require.NoError(t, err)
	require.Equal(t, int64(3426), r.Config.Host.LinkMBps)
	require.Zero(t, c.Host.LinkMBps, "Resolve never changes its receiver")
	require.Equal(t, 8, r.Config.Host.QueueCount())
	again, err := r.Config.Resolve()
	require.NoError(t, err)
	require.Equal(t, r, again)

	c.Host.PCIeGen, c.Host.PCIeLanes = 4, 16
	r, err = c.Resolve()
	require.NoError(t, err)
	require.Equal(t, int64(27411), r.Config.Host.LinkMBps) // 16 GT/s × 16 × 128/130 / 8 × 87 %

	c.Host.LinkMBps = 2500
	r, err = c.Resolve()
	require.NoError(t, err)
	require.Equal(t, int64(2500), r.Config.Host.LinkMBps, "link_mbps given overrides the PCIe link")

	c.Host.PCIeGen, c.Host.PCIeLanes = 0, 0
	r, err = c.Resolve()
	require.NoError(t, err, "a link given by its bandwidth alone")
	require.Equal(t, int64(2500), r.Config.Host.LinkMBps)

	sata, err := controller.Preset("generic-mlc")
	require.NoError(t, err)
	require.False(t, sata.Host.IsNVMe())
	require.Equal(t, 1, sata.Host.QueueCount())
}

// TestNVMeDescriptionErrors: each NVMe field out of range, or on SATA, is
// refused with an error naming it and what is allowed.
func TestNVMeDescriptionErrors(t *testing.T) {
	for _, tc := range []struct {
		preset string
		edit   func(*controller.Config)
		field  string
	}{
		{"generic-nvme", func(c *controller.Config) { c.Host.Interface = "usb" }, `host.interface = "usb", allowed sata or nvme`},
		{"generic-nvme", func(c *controller.Config) { c.Host.PCIeGen = 0 }, "host.pcie_gen = 0, allowed 1..5"},
		{"generic-nvme", func(c *controller.Config) { c.Host.PCIeGen = 7 }, "host.pcie_gen = 7, allowed 1..5"},
		{"generic-nvme", func(c *controller.Config) { c.Host.PCIeLanes = 12 }, "host.pcie_lanes = 12, allowed 1, 2, 4, 8 or 16"},
		{"generic-nvme", func(c *controller.Config) { c.Host.PCIeEfficiencyPercent = 120 }, "host.pcie_efficiency_percent = 120, allowed 1..100"},
		{"generic-nvme", func(c *controller.Config) { c.Host.LinkMBps = 2500; c.Host.PCIeLanes = 5 }, "host.pcie_lanes = 5"},
		{"generic-nvme", func(c *controller.Config) { c.Host.Queues = 65536 }, "host.queues = 65536, allowed 0..65535"},
		{"generic-nvme", func(c *controller.Config) { c.Host.Queues = -1 }, "host.queues = -1, allowed 0..65535"},
		{"generic-nvme", func(c *controller.Config) { c.Host.QueueDepth = 65537 }, "host.queue_depth = 65537, allowed 1..65536"},
		{"generic-nvme", func(c *controller.Config) { c.Host.QueueDepth = 0 }, "host.queue_depth = 0, allowed 1..65536"},
		{"generic-nvme", func(c *controller.Config) { c.Firmware.DoorbellNs = -1 }, "firmware.doorbell_ns = -1, allowed 0..10000000"},
		{"generic-nvme", func(c *controller.Config) { c.Firmware.InterruptNs = 2e7 }, "firmware.interrupt_ns = 20000000, allowed 0..10000000"},
		{"generic-nvme", func(c *controller.Config) { c.Firmware.HMB = 64 << 20 }, "firmware.hmb = 67108864 bytes needs firmware.map_cache"},
		{"generic-nvme", func(c *controller.Config) { c.Firmware.HMBNs = 500 }, "firmware.hmb_ns = 500 needs firmware.hmb"},
		{"generic-nvme-hmb", func(c *controller.Config) { c.Firmware.HMB = 4096 }, "firmware.hmb = 4096 bytes, allowed 0 (none) or 16384 (one mapping page) .. 1TiB"},
		{"generic-nvme-hmb", func(c *controller.Config) { c.Firmware.HMBNs = -5 }, "firmware.hmb_ns = -5, allowed 0..10000000"},
		{"generic-mlc", func(c *controller.Config) { c.Host.Queues = 4 }, "host.queues = 4 on SATA, allowed 1"},
		{"generic-mlc", func(c *controller.Config) { c.Host.PCIeGen = 3 }, "host.pcie_gen = 3 on SATA, allowed only with host.interface: nvme"},
		{"generic-mlc", func(c *controller.Config) { c.Host.PCIeLanes = 4 }, "host.pcie_lanes = 4 on SATA"},
		{"generic-mlc", func(c *controller.Config) { c.Firmware.MapCache, c.Firmware.HMB = 1<<20, 8<<20 }, "firmware.hmb = 8388608 on SATA, allowed only with host.interface: nvme"},
		{"generic-mlc", func(c *controller.Config) { c.Host.Interface, c.Host.LinkMBps = "nvme", 0 }, "host.pcie_gen = 0, allowed 1..5 (an NVMe link needs host.pcie_gen and host.pcie_lanes, or host.link_mbps)"},
	} {
		c, err := controller.Preset(tc.preset)
		require.NoError(t, err)
		tc.edit(&c)
		_, err = c.Resolve()
		require.ErrorIs(t, err, controller.ErrConfig, tc.field)
		require.ErrorContains(t, err, tc.field)
	}
	// In YAML, an unknown interface is refused as it is read.
	_, err := controller.ParseConfig("d.yaml", []byte("capacity: 16GiB\nhost:\n  interface: scsi\n"))
	require.ErrorIs(t, err, controller.ErrConfig)
	require.ErrorContains(t, err, `d.yaml:3: invalid drive description: host.interface = scsi, allowed sata or nvme`)
	c, err := controller.ParseConfig("d.yaml", []byte("host:\n  interface: nvme\n  pcie_gen: 4\n  pcie_lanes: 2\n"))
	require.NoError(t, err)
	require.Equal(t, controller.NVMe, c.Host.Interface)
}

// TestNVMeCommandCosts: on an idle NVMe drive a 4 KiB read costs the
// doorbell, the firmware's read command, the NAND command, tR and the
// channel transfer, the link's command overhead and data, and the
// interrupt; a write is acknowledged from the buffer once its data has
// crossed the link's other direction, so a read's data and a write's
// data cross at once.
func TestNVMeCommandCosts(t *testing.T) {
	cfg, err := controller.Preset("generic-nvme")
	require.NoError(t, err)
	d, err := controller.New(cfg.Resized(16<<30, cfg.OPPercent))
	require.NoError(t, err)
	w, err := d.Submit(0, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096})
	require.NoError(t, err)
	// doorbell + write command + link (command + 4096 B at 3426 MB/s) + interrupt
	require.Equal(t, int64(1000+1500+60+1196+2000), w)
	_, err = d.Submit(w, blockio.Request{Op: blockio.Flush})
	require.NoError(t, err)
	at := int64(1e9) // long after: everything idle
	r, err := d.Submit(at, blockio.Request{Op: blockio.Read, Offset: 0, Length: 4096})
	require.NoError(t, err)
	// doorbell + read command + NAND command + tR + 4096 B at 800 MB/s + link + interrupt
	require.Equal(t, int64(1000+1200+300+50000+5120+60+1196+2000), r-at)

	// Full duplex: 128 KiB reads and writes at once take no longer on
	// the link than either alone (SATA's half-duplex link adds them).
	link := func(name string, iface controller.Interface) (alone, both int64) {
		c, err := controller.Preset(name)
		require.NoError(t, err)
		c = c.Resized(16<<30, c.OPPercent)
		c.Firmware.CommandNs, c.Firmware.ReadCommandNs, c.Firmware.WriteCommandNs = 0, 0, 0
		c.Firmware.DoorbellNs, c.Firmware.InterruptNs = 0, 0
		c.Firmware.WriteBuffer = 1 << 30
		c.Host.LinkMBps = 100 // the link binds
		d, err := controller.New(c)
		require.NoError(t, err)
		require.Equal(t, iface == controller.NVMe, d.Config().Host.IsNVMe())
		submit := func(op blockio.Op, off int64) {
			done, err := d.Submit(0, blockio.Request{Op: op, Offset: off, Length: 128 << 10})
			require.NoError(t, err)
			both = max(both, done)
		}
		for i := range int64(8) {
			submit(blockio.Write, i<<17)
		}
		alone = both
		for i := range int64(8) {
			submit(blockio.Write, (8+i)<<17)
			submit(blockio.Read, 8<<30) // unwritten: no flash work
		}
		return alone, both
	}
	alone, both := link("generic-nvme", controller.NVMe)
	require.InEpsilon(t, float64(2*alone), float64(both), 0.02, "NVMe: the reads cross beside the second batch of writes")
	alone, both = link("generic-mlc", controller.SATA)
	require.InEpsilon(t, float64(3*alone), float64(both), 0.02, "SATA: the reads wait for the link after the writes")
}

// TestReadLimits: the ceilings of 4 KiB random reads on the generic NVMe
// drive, from its geometry, timing, link and firmware.
func TestReadLimits(t *testing.T) {
	cfg, err := controller.Preset("generic-nvme")
	require.NoError(t, err)
	l, err := cfg.ReadLimits(4096)
	require.NoError(t, err)
	require.InDelta(t, 32e9/(300+50000+5120), l.Dies, 1e-6) // 32 dies, each read: command, tR, transfer at 800 MB/s
	require.InDelta(t, 8e9/(300+5120), l.Channels, 1e-6)    // 8 channels: command and transfer
	require.InDelta(t, 1e9/(60+1196), l.Link, 1e-6)         // 4096 B at 3426 MB/s and the command's 60 ns
	require.InDelta(t, 1e9/1200.0, l.Firmware, 1e-6)        // read_command_ns
	require.True(t, math.IsInf(l.Datapath, 1))              // no data-path rate
	iops, by := l.Bound()
	require.Equal(t, "dies", by)
	require.Equal(t, l.Dies, iops)

	cfg.Host.PCIeLanes = 1
	l, err = cfg.ReadLimits(4096)
	require.NoError(t, err)
	_, by = l.Bound()
	require.Equal(t, "link", by)

	cfg.Host.PCIeLanes = 4
	cfg.Firmware.ReadCommandNs = 0
	cfg.Firmware.CommandNs = 4000
	l, err = cfg.ReadLimits(4096)
	require.NoError(t, err)
	iops, by = l.Bound()
	require.Equal(t, "firmware", by, "without read_command_ns, command_ns")
	require.InDelta(t, 250e3, iops, 1e-6)

	_, err = cfg.ReadLimits(32 << 10)
	require.ErrorContains(t, err, "allowed 1..16384 (one flash page)")
	cfg.Host.PCIeGen = 9
	_, err = cfg.ReadLimits(4096)
	require.ErrorIs(t, err, controller.ErrConfig)

	sata, err := controller.Preset("m4-256")
	require.NoError(t, err)
	l, err = sata.ReadLimits(4096)
	require.NoError(t, err)
	iops, by = l.Bound()
	require.Equal(t, "firmware", by, "the m4's fitted read command cost")
	require.InDelta(t, 1e9/24500, iops, 1e-6)
}
