package nand

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The physics checks below write each expected time out from the ONFI
// command sequences (ONFI 2.x, §5 and the timing tables; Micron L74A data
// sheet for the part's values), independently of how the interface model
// groups them.

// onfiPart is an L74A-like part: 8192 + 448-byte pages, tPROG 1.3 ms,
// ONFI NV-DDR mode 5 (200 MT/s, tCAD 25 ns between command and address
// cycles) and asynchronous mode 5 (tRC = tWC = 20 ns); tADL 70 ns, tWB
// 100 ns, tWHR 80 ns, tRR 20 ns (ONFI 2.x mode 5 values).
func onfiPart(channels, diesPerChannel, planes int) Config {
	return Config{
		Geometry: Geometry{Channels: channels, TargetsPerChannel: 1, DiesPerTarget: diesPerChannel, PlanesPerDie: planes,
			BlocksPerPlane: 8, PagesPerBlock: 16, PageBytes: 8192, SpareBytes: 448, UnitBytes: 4096},
		Timing: Timing{Cell: SLC, ReadNs: 50_000, ProgLSBNs: 1_300_000, ProgMSBNs: 1_300_000,
			EraseNs: 3_000_000, BusMBps: 200, CommandNs: 200, RatedCycles: 3000},
		Interface: Interface{SDRCycleNs: 20, DDRMTps: 200, DDRCommandNs: 25, ADLNs: 70, WBNs: 100, WHRNs: 80, RRNs: 20,
			DBSYNs: 500, CBSYNs: 3000},
	}
}

const pageOnBus = 8192 + 448

func TestInterfaceBusTimesFromONFI(t *testing.T) {
	const (
		cad, tADL, tWB, tWHR, tRR = 25, 70, 100, 80, 20
		ddrByte                   = 5  // ns a byte at 200 MT/s
		sdrByte                   = 20 // ns a byte at tWC 20 ns
	)
	cases := []struct {
		name   string
		edit   func(*Interface)
		planes int
		cyc    int64 // a command or address cycle
		byteNs int64 // a data byte
	}{
		{"ddr one plane", nil, 1, cad, ddrByte},
		{"ddr two planes", nil, 2, cad, ddrByte},
		{"sdr one plane", func(f *Interface) { f.Mode = "sdr" }, 1, sdrByte, sdrByte},
		{"ddr capped at 100 MT/s by the controller", func(f *Interface) { f.MaxMTps = 100 }, 1, cad, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := onfiPart(1, 1, tc.planes)
			if tc.edit != nil {
				tc.edit(&c.Interface)
			}
			require.NoError(t, c.Validate())
			p := int64(tc.planes)
			// The status read after every program, read and erase: 70h,
			// tWHR, one data cycle.
			status := tc.cyc + tWHR + tc.cyc
			bt := BusTimesOf(c, tc.planes, 4096)
			// Program, per plane: 80h, 5 address cycles, tADL, data in,
			// 10h (11h before the last plane), tWB.
			require.Equal(t, status+p*(7*tc.cyc+tADL+pageOnBus*tc.byteNs+tWB), bt.ProgramNs)
			require.Equal(t, (p-1)*500, bt.ProgramDieExtraNs)
			// Read: 00h, 5 address cycles, 30h, tWB per plane; then
			// status, 00h, tRR, and per extra plane a change of column
			// (06h, 5 address cycles, E0h, tWHR) before its data.
			require.Equal(t, p*(7*tc.cyc+tWB), bt.ReadCmdNs)
			require.Equal(t, status+tc.cyc+tRR+(p-1)*(7*tc.cyc+tWHR)+4096*tc.byteNs, bt.ReadOutNs)
			// Erase, per plane: 60h, 3 row cycles, D0h, tWB; then status.
			require.Equal(t, status+p*(5*tc.cyc+tWB), bt.EraseNs)
		})
	}
}

// A lone die's program takes its bus time and then tPROG; two planes add
// tDBSY; a read takes its command, tR and its data out.
func TestInterfaceTimelineOneDie(t *testing.T) {
	for _, planes := range []int{1, 2} {
		c := onfiPart(1, 1, planes)
		bt := BusTimesOf(c, planes, 4096)
		tl := NewTimeline(c)
		done := tl.Program(0, 0, planes, 0)
		require.Equal(t, bt.ProgramNs+bt.ProgramDieExtraNs+1_300_000, done, "planes %d", planes)
		r := tl.Read(0, planes, 4096, done)
		require.Equal(t, done+bt.ReadCmdNs+50_000+bt.ReadOutNs, r)
		e := tl.Erase(0, planes, r)
		require.Equal(t, r+bt.EraseNs+3_000_000, e)
		require.Equal(t, e, tl.DieBusy(0))
		require.Equal(t, bt.ProgramNs+bt.ReadCmdNs+bt.ReadOutNs+bt.EraseNs, tl.ChannelBusy(0))
	}
}

// programStream books k pages on each of n dies of channel 0, round robin
// as a controller dispatching to the die that frees first would, and
// returns when the last program ends.
func programStream(tl *Timeline, n, k int) int64 {
	var end int64
	for i := range k {
		for d := range n {
			end = max(end, tl.Program(d, i, 1, 0))
		}
	}
	return end
}

// Die interleave on a channel: n dies writing k pages each finish in
// k·(bus+tPROG) while the bus has room, and in about n·k·bus once it is
// the bound; the knee is at (bus+tPROG)/bus dies, where the two bounds
// meet and the round robin's queueing adds a little (3 % allowed).
func TestInterfaceDieInterleaveLimit(t *testing.T) {
	const k = 40
	for _, mode := range []string{"ddr", "sdr"} {
		c := onfiPart(1, 16, 1)
		c.Interface.Mode = mode
		bus := BusTimesOf(c, 1, 0).ProgramNs
		knee := float64(bus+1_300_000) / float64(bus)
		for _, n := range []int{1, 2, 4, 8, 16} {
			cc := c
			cc.Geometry.DiesPerTarget = n
			got := float64(programStream(NewTimeline(cc), n, k))
			dieBound := float64(k) * float64(bus+1_300_000)
			busBound := float64(n*k)*float64(bus) + 1_300_000
			want := max(dieBound, busBound)
			require.InEpsilon(t, want, got, 0.03, "%s, %d dies (knee %.1f): %.0f ns, theory %.0f", mode, n, knee, got, want)
		}
	}
}

// Cache program overlaps the next page's data-in with the array's program
// of the page before: k pages on one die take bus + k·(tCBSY + tPROG)
// instead of k·(bus + tPROG).
func TestInterfaceCacheProgram(t *testing.T) {
	const k = 10
	c := onfiPart(1, 1, 1)
	c.Interface.Mode = "sdr" // a long data-in, so the overlap shows
	bus := BusTimesOf(c, 1, 0).ProgramNs
	plain := programStream(NewTimeline(c), 1, k)
	require.Equal(t, int64(k)*(bus+1_300_000), plain)

	c.Interface.Cache = true
	tl := NewTimeline(c)
	cached := programStream(tl, 1, k)
	require.Equal(t, bus+int64(k)*(3000+1_300_000), cached)
	require.Equal(t, cached, tl.DieBusy(0))

	// A read between programs uses the registers: the next page's data
	// waits for it, then overlaps the array again.
	tl.Reset()
	p1 := tl.Program(0, 0, 1, 0)
	r := tl.Read(0, 1, 4096, 0)
	require.Greater(t, r, p1)
	p2 := tl.Program(0, 1, 1, 0)
	require.Equal(t, r+bus+3000+1_300_000, p2)
}

// Without an interface, a channel moves data at Timing.BusMBps and every
// operation costs Timing.CommandNs: the model before interfaces.
func TestInterfaceOffIsBusRate(t *testing.T) {
	c := onfiPart(1, 1, 2)
	c.Interface = Interface{}
	bt := BusTimesOf(c, 2, 4096)
	require.Equal(t, 200+2*c.Timing.TransferNs(pageOnBus), bt.ProgramNs)
	require.Equal(t, int64(200), bt.ReadCmdNs)
	require.Equal(t, c.Timing.TransferNs(4096), bt.ReadOutNs)
	require.Equal(t, int64(200), bt.EraseNs)
}

func TestInterfaceValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Interface)
		field string
	}{
		{"fields without a cycle time", func(f *Interface) { f.SDRCycleNs = 0 }, "interface.sdr_cycle_ns"},
		{"ddr mode on an asynchronous part", func(f *Interface) { f.DDRMTps, f.DDRCommandNs, f.Mode = 0, 0, "ddr" }, "interface.mode"},
		{"unknown mode", func(f *Interface) { f.Mode = "toggle" }, "interface.mode"},
		{"ddr without its command cycle", func(f *Interface) { f.DDRCommandNs = 0 }, "interface.ddr_command_ns"},
		{"negative tADL", func(f *Interface) { f.ADLNs = -1 }, "interface.adl_ns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := onfiPart(1, 1, 1)
			tc.edit(&c.Interface)
			err := c.Validate()
			require.ErrorIs(t, err, ErrConfig)
			require.Contains(t, err.Error(), tc.field)
		})
	}
	require.NoError(t, onfiPart(1, 1, 1).Validate())
	require.NoError(t, Interface{}.Validate())
}
