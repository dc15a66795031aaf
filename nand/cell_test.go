package nand

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// cellTiming returns a timing of cell type c whose page types all read
// and program at different times: tR grows by 10 µs and tPROG by 400 µs
// a page type, from the lower page.
func cellTiming(c CellType, mode ProgramMode) Timing {
	tm := Timing{Cell: c, ReadNs: 60_000, EraseNs: 5_000_000, BusMBps: 800, CommandNs: 300, RatedCycles: 1000, Program: mode}
	for k := range c.Bits() {
		tm.ReadNsByPage = append(tm.ReadNsByPage, 40_000+10_000*int64(k))
		tm.ProgNsByPage = append(tm.ProgNsByPage, 300_000+400_000*int64(k))
	}
	if mode == OneShot {
		tm.ProgNsByPage = nil
		tm.ProgWordLineNs = 2_000_000 + 1_000_000*int64(c.Bits())
	}
	return tm
}

// cellConfig is testConfig with timing tm and whole word lines of every
// cell type in a block (48 pages).
func cellConfig(tm Timing) Config {
	cfg := testConfig()
	cfg.Timing = tm
	cfg.Geometry.PagesPerBlock = 48
	return cfg
}

func TestPageTypes(t *testing.T) {
	cases := []struct {
		cell  CellType
		wl    int
		kinds []PageKind // of pages 0, 1, 2, ... of two word lines
	}{
		{SLC, 1, []PageKind{LSB, LSB}},
		{MLC, 2, []PageKind{LSB, MSB, LSB, MSB}},
		{TLC, 3, []PageKind{LSB, CSB, MSB, LSB, CSB, MSB}},
		{QLC, 4, []PageKind{LSB, CSB, MSB, TSB, LSB, CSB, MSB, TSB}},
	}
	for _, tc := range cases {
		t.Run(tc.cell.String(), func(t *testing.T) {
			tm := Timing{Cell: tc.cell}
			require.Equal(t, tc.wl, tm.WordLinePages())
			require.Equal(t, tc.wl, tc.cell.Bits())
			for p, k := range tc.kinds {
				require.Equal(t, p%tc.wl, tm.PageType(p), "page %d", p)
				require.Equal(t, k, tm.Kind(p), "page %d", p)
			}
			back, err := ParseCellType(tc.cell.String())
			require.NoError(t, err)
			require.Equal(t, tc.cell, back)
		})
	}
	require.Equal(t, []string{"lower", "middle", "upper", "top"},
		[]string{LSB.String(), CSB.String(), MSB.String(), TSB.String()})
}

// TestPageTimes: with per-page-type lists every page takes its type's
// times; without, the derivation from read_ns, prog_lsb_ns and
// prog_msb_ns (unchanged for SLC, MLC and TLC; evenly spaced on QLC).
func TestPageTimes(t *testing.T) {
	for _, c := range []CellType{SLC, MLC, TLC, QLC} {
		t.Run(c.String(), func(t *testing.T) {
			tm := cellTiming(c, MultiPass)
			cfg := cellConfig(tm)
			require.NoError(t, cfg.Validate())
			tl := NewTimeline(cfg)
			for p := range 2 * c.Bits() {
				k := p % c.Bits()
				require.Equal(t, tm.ReadNsByPage[k], tm.ReadNsOf(p), "read of page %d", p)
				require.Equal(t, tm.ReadNsByPage[k], tl.ReadNs(p), "read of page %d", p)
				require.Equal(t, tm.ProgNsByPage[k], tm.ProgNs(p), "program of page %d", p)
				require.Equal(t, tm.ProgNsByPage[k], tl.ProgNs(p), "program of page %d", p)
			}
			require.Equal(t, tm.ReadNs, tm.ReadNsOf(-1), "a page of unknown type reads in read_ns")
			require.Equal(t, tm.ReadNs, tl.ReadNs(-1))
			var sum int64
			for _, p := range tm.ProgNsByPage {
				sum += p
			}
			require.Equal(t, sum, tm.WordLineProgNs())
		})
	}
	derived := []struct {
		cell CellType
		prog []int64 // of the page types, from prog_lsb_ns 300 µs and prog_msb_ns 2400 µs
	}{
		{SLC, []int64{300_000}},
		{MLC, []int64{300_000, 2_400_000}},
		{TLC, []int64{300_000, 1_350_000, 2_400_000}},
		{QLC, []int64{300_000, 1_000_000, 1_700_000, 2_400_000}},
	}
	for _, tc := range derived {
		tm := Timing{Cell: tc.cell, ReadNs: 50_000, ProgLSBNs: 300_000, ProgMSBNs: 2_400_000, EraseNs: 1, BusMBps: 1, RatedCycles: 1}
		require.NoError(t, tm.Validate())
		for p := range 2 * tc.cell.Bits() {
			require.Equal(t, tc.prog[p%tc.cell.Bits()], tm.ProgNs(p), "%s page %d", tc.cell, p)
			require.Equal(t, tm.ReadNs, tm.ReadNsOf(p), "%s page %d", tc.cell, p)
		}
	}
}

// TestTimelineReadsByPageType: a read of a page takes its type's tR, a
// read of an unknown page read_ns, suspending or not.
func TestTimelineReadsByPageType(t *testing.T) {
	tm := cellTiming(QLC, MultiPass)
	cfg := cellConfig(tm)
	x := tm.TransferNs(4096)
	for p := range 4 {
		tl := NewTimeline(cfg)
		require.Equal(t, tm.CommandNs+tm.ReadNsByPage[p]+x, tl.ReadPage(0, p, 1, 4096, 0), "page %d", p)
		require.Equal(t, tm.CommandNs+tm.ReadNsByPage[p]+x, tl.ReadPageSuspending(1, 4+p, 1, 4096, 0, 20_000), "page %d", 4+p)
	}
	tl := NewTimeline(cfg)
	require.Equal(t, tm.CommandNs+tm.ReadNs+x, tl.Read(0, 1, 4096, 0))
	// Suspending a program, the read still takes its page's time.
	prog := tl.Program(1, 3, 1, 0)
	r := tl.ReadPageSuspending(1, 1, 1, 4096, 100_000, 20_000)
	require.Equal(t, int64(100_000+20_000)+tm.CommandNs+tm.ReadNsByPage[1]+x, r)
	require.Equal(t, prog+(r-100_000), tl.DieFree(1))
}

// TestOneShotDieOccupancy: programming the pages of a word line keeps a
// one-shot die busy for the word line's tPROG once, and a multi-pass die
// for each page's; the bus carries every page either way.
func TestOneShotDieOccupancy(t *testing.T) {
	for _, c := range []CellType{MLC, TLC, QLC} {
		for _, mode := range []ProgramMode{MultiPass, OneShot} {
			t.Run(fmt.Sprintf("%s/%s", c, mode), func(t *testing.T) {
				tm := cellTiming(c, mode)
				cfg := cellConfig(tm)
				require.NoError(t, cfg.Validate())
				g := cfg.Geometry
				tl := NewTimeline(cfg)
				load := tm.CommandNs + int64(g.PlanesPerDie)*tm.TransferNs(g.PageBytes+g.SpareBytes)
				plane := int64(g.PlanesPerDie-1) * tm.PlaneNs
				wl := c.Bits()
				var done, arrays int64
				for p := range 2 * wl { // two word lines, one page after another
					done = tl.Program(0, p, g.PlanesPerDie, done)
					k := p % wl
					var prog int64
					switch {
					case mode == MultiPass:
						prog = tm.ProgNsByPage[k] + plane
					case k == wl-1:
						prog = tm.ProgWordLineNs + plane
					}
					arrays += prog
					require.Equal(t, int64(p+1)*load+arrays, done, "page %d ends after the transfers and array times so far", p)
				}
				want := 2 * (int64(wl)*load + tm.WordLineProgNs() + plane)
				if mode == MultiPass {
					want += 2 * int64(wl-1) * plane
				}
				require.Equal(t, want, tl.DieBusy(0))
				require.Equal(t, 2*int64(wl)*load, tl.ChannelBusy(0))
				if mode == OneShot {
					require.Equal(t, tm.ProgWordLineNs, tm.WordLineProgNs())
				}
			})
		}
	}
}

// TestOneShotBlockEndsMidWordLine: a block whose pages end inside a word
// line programs that partial word line with its last page.
func TestOneShotBlockEndsMidWordLine(t *testing.T) {
	tm := cellTiming(TLC, OneShot)
	cfg := cellConfig(tm)
	cfg.Geometry.PagesPerBlock = 8 // two word lines and two pages
	tl := NewTimeline(cfg)
	require.Zero(t, tl.ProgNs(6))
	require.Equal(t, tm.ProgWordLineNs, tl.ProgNs(7))
	require.Zero(t, tm.ProgNs(7), "the part alone does not know where blocks end")
	require.Equal(t, tm.ProgWordLineNs, tl.ProgNs(5))
}

func TestSLCMode(t *testing.T) {
	tm := cellTiming(TLC, OneShot)
	_, ok := tm.SLCMode()
	require.False(t, ok, "no SLC mode stated")
	tm.SLCReadNs, tm.SLCProgNs, tm.SLCRatedCycles = 25_000, 150_000, 30_000
	require.NoError(t, tm.Validate())
	slc, ok := tm.SLCMode()
	require.True(t, ok)
	require.NoError(t, slc.Validate())
	require.Equal(t, SLC, slc.Cell)
	require.Equal(t, MultiPass, slc.Program)
	require.Equal(t, 1, slc.WordLinePages())
	for p := range 3 {
		require.Equal(t, tm.SLCReadNs, slc.ReadNsOf(p))
		require.Equal(t, tm.SLCProgNs, slc.ProgNs(p))
	}
	require.Equal(t, tm.EraseNs, slc.EraseNs, "erase defaults to the part's")
	require.Equal(t, tm.SLCRatedCycles, slc.RatedCycles)
	require.Equal(t, tm.BusMBps, slc.BusMBps)
	tm.SLCEraseNs = 4_000_000
	slc, _ = tm.SLCMode()
	require.Equal(t, tm.SLCEraseNs, slc.EraseNs)
	self, ok := slc.SLCMode()
	require.True(t, ok, "an SLC part is its own SLC mode")
	require.Equal(t, slc, self)
}

func TestTimingValidateNewFields(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Timing)
		want []string // in the error
	}{
		{"qlc reads in three types", func(tm *Timing) { tm.ReadNsByPage = tm.ReadNsByPage[:3] },
			[]string{"timing.read_ns_by_page has 3 values, allowed 4", "lower, middle, upper, top"}},
		{"tlc list on qlc", func(tm *Timing) { tm.Cell = TLC }, []string{"timing.read_ns_by_page has 4 values, allowed 3", "lower, middle, upper)"}},
		{"zero read time", func(tm *Timing) { tm.ReadNsByPage[2] = 0 }, []string{"timing.read_ns_by_page[2] = 0, allowed 1..1000000000"}},
		{"program list count", func(tm *Timing) { tm.ProgNsByPage = tm.ProgNsByPage[:2] }, []string{"timing.prog_ns_by_page has 2 values, allowed 4"}},
		{"program too long", func(tm *Timing) { tm.ProgNsByPage[3] = 2e9 }, []string{"timing.prog_ns_by_page[3] = 2000000000, allowed 1..1000000000"}},
		{"both program forms", func(tm *Timing) { tm.ProgLSBNs = 5 }, []string{"prog_lsb_ns and prog_msb_ns", "prog_ns_by_page"}},
		{"no program time", func(tm *Timing) { tm.ProgNsByPage = nil }, []string{"timing.prog_lsb_ns = 0, allowed 1..1000000000"}},
		{"word line time on multi-pass", func(tm *Timing) { tm.ProgWordLineNs = 3 }, []string{"timing.prog_word_line_ns = 3, allowed only with program: one-shot"}},
		{"one-shot without word line time", func(tm *Timing) { tm.Program = OneShot; tm.ProgNsByPage = nil },
			[]string{"timing.prog_word_line_ns = 0, allowed 1..1000000000 with program: one-shot"}},
		{"one-shot with page times", func(tm *Timing) { tm.Program, tm.ProgWordLineNs = OneShot, 5 },
			[]string{"prog_ns_by_page are per-page times, allowed only with program: multi-pass"}},
		{"one-shot slc", func(tm *Timing) {
			*tm = Timing{Cell: SLC, ReadNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 1, Program: OneShot, ProgWordLineNs: 1}
		},
			[]string{"timing.program = one-shot, allowed only for mlc, tlc, qlc"}},
		{"unknown program mode", func(tm *Timing) { tm.Program = 9 }, []string{"timing.program = 9, allowed multi-pass or one-shot"}},
		{"slc mode without endurance", func(tm *Timing) { tm.SLCReadNs, tm.SLCProgNs = 20_000, 100_000 },
			[]string{"timing.slc_rated_cycles = 0, allowed 1..10000000"}},
		{"slc mode without program", func(tm *Timing) { tm.SLCReadNs, tm.SLCRatedCycles = 20_000, 30_000 },
			[]string{"timing.slc_prog_ns = 0, allowed 1..1000000000"}},
		{"slc erase negative", func(tm *Timing) {
			tm.SLCReadNs, tm.SLCProgNs, tm.SLCRatedCycles, tm.SLCEraseNs = 20_000, 100_000, 30_000, -1
		}, []string{"timing.slc_erase_ns = -1, allowed 0..1000000000"}},
		{"slc mode of an slc part", func(tm *Timing) {
			*tm = Timing{Cell: SLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 1, SLCRatedCycles: 5}
		}, []string{"timing.slc_read_ns and the other SLC-mode times", "allowed only for mlc, tlc, qlc parts"}},
		{"bad cell", func(tm *Timing) { tm.Cell = 5 }, []string{"timing.cell = 5, allowed slc, mlc, tlc or qlc"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := cellTiming(QLC, MultiPass)
			require.NoError(t, tm.Validate())
			tc.edit(&tm)
			err := tm.Validate()
			require.ErrorIs(t, err, ErrConfig)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestTimingRoundTrip(t *testing.T) {
	full := cellTiming(QLC, OneShot)
	full.SLCReadNs, full.SLCProgNs, full.SLCEraseNs, full.SLCRatedCycles = 30_000, 200_000, 3_000_000, 30_000
	for _, tm := range []Timing{cellTiming(TLC, MultiPass), full, testConfig().Timing} {
		require.NoError(t, tm.Validate())
		b, err := yaml.Marshal(tm)
		require.NoError(t, err)
		var back Timing
		require.NoError(t, yaml.Unmarshal(b, &back))
		require.Equal(t, tm, back, "%s", b)
		j, err := json.Marshal(tm)
		require.NoError(t, err)
		back = Timing{}
		require.NoError(t, json.Unmarshal(j, &back))
		require.Equal(t, tm, back, "%s", j)
	}
	// An existing part's description gains no field.
	b, err := yaml.Marshal(testConfig().Timing)
	require.NoError(t, err)
	for _, f := range []string{"by_page", "program", "word_line", "slc_"} {
		require.NotContains(t, string(b), f)
	}
	var tm Timing
	require.NoError(t, yaml.Unmarshal([]byte("cell: qlc\nprogram: one-shot\nread_ns_by_page: [1, 2, 3, 4]\n"), &tm))
	require.Equal(t, QLC, tm.Cell)
	require.Equal(t, OneShot, tm.Program)
	require.Equal(t, []int64{1, 2, 3, 4}, tm.ReadNsByPage)
	err = yaml.Unmarshal([]byte("program: two-shot\n"), &tm)
	require.ErrorContains(t, err, "allowed multi-pass, one-shot")
}

// TestTimelinePageOpsDoNotAllocate guards the per-page path.
func TestTimelinePageOpsDoNotAllocate(t *testing.T) {
	tl := NewTimeline(cellConfig(cellTiming(QLC, OneShot)))
	var at int64
	page := 0
	allocs := testing.AllocsPerRun(1000, func() {
		at = tl.Program(0, page%48, 2, at)
		at = tl.ReadPage(0, page%48, 1, 4096, at)
		page++
	})
	require.Zero(t, allocs)
}
