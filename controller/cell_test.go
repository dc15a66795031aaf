package controller_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testdrive"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/sim"
)

// The TLC and QLC parts the tests build drives on.
const (
	tlcPart = "samsung-v5-tlc-256gbit"
	qlcPart = "imft-64l-qlc-1tbit"
)

// multiPass makes a one-shot part multi-pass: its word line's tPROG
// split over the page types, the later pages slower.
func multiPass(tm *nand.Timing) {
	wl := int64(tm.WordLinePages())
	var sum int64
	tm.ProgNsByPage = nil
	for k := range wl {
		tm.ProgNsByPage = append(tm.ProgNsByPage, tm.ProgWordLineNs*(k+1)/(wl*(wl+1)/2))
		sum += tm.ProgNsByPage[k]
	}
	tm.ProgNsByPage[wl-1] += tm.ProgWordLineNs - sum
	tm.Program, tm.ProgWordLineNs = nand.MultiPass, 0
}

// TestSequentialWriteRatePerDie: a long sequential write on a drive of
// one or two dies runs at the rate the part's parameters give a die —
// a word line's pages (planes × page bytes × pages per word line) per
// word line's time (its tPROG, once on a one-shot part, each page's on
// a multi-pass one, plus every page's command and transfer) — times the
// dies.
func TestSequentialWriteRatePerDie(t *testing.T) {
	cases := []struct {
		name  string
		part  string
		dies  int
		size  string
		multi bool
	}{
		{"tlc one-shot", tlcPart, 1, "256m", false},
		{"tlc multi-pass", tlcPart, 1, "256m", true},
		{"tlc one-shot two dies", tlcPart, 2, "512m", false},
		{"qlc one-shot", qlcPart, 1, "128m", false},
		{"qlc multi-pass", qlcPart, 1, "128m", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testdrive.Part(t, tc.part, tc.dies, 4<<30)
			if tc.multi {
				multiPass(&cfg.NAND.Timing)
			}
			d, err := controller.New(cfg)
			require.NoError(t, err)
			e := sim.New(d)
			e.SecureErase()
			r := runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": tc.size, "iodepth": "4", "end_fsync": "1"})
			g, tm := d.Config().NAND.Geometry, d.Config().NAND.Timing
			wl := int64(tm.WordLinePages())
			arrays := int64(1) // array operations a word line takes
			if tm.Program == nand.MultiPass {
				arrays = wl
			}
			load := tm.CommandNs + int64(g.PlanesPerDie)*tm.TransferNs(g.PageBytes+g.SpareBytes)
			wlNs := wl*load + tm.WordLineProgNs() + arrays*int64(g.PlanesPerDie-1)*tm.PlaneNs
			want := float64(int64(g.Dies())*int64(g.PlanesPerDie*g.PageBytes)*wl) / float64(wlNs) * 1e9
			got := float64(r.Write.Bytes) / float64(r.RuntimeNs) * 1e9
			t.Logf("%s: %.2f MB/s simulated, %.2f MB/s from the part (word line %.2f ms on %d dies)", tc.name, got/1e6, want/1e6, float64(wlNs)/1e6, g.Dies())
			require.InEpsilon(t, want, got, 0.03)
		})
	}
}

// TestReadsTakeTheirPageTypesTime: host reads at queue depth one on a
// drive whose page types all read 100 µs slower than read_ns take 100
// µs longer than on the same drive without per-page-type times.
func TestReadsTakeTheirPageTypesTime(t *testing.T) {
	mean := func(slower int64) float64 {
		cfg := testdrive.Part(t, tlcPart, 2, 2<<30)
		tm := &cfg.NAND.Timing
		tm.ReadNsByPage = nil
		if slower > 0 {
			for range tm.WordLinePages() {
				tm.ReadNsByPage = append(tm.ReadNsByPage, tm.ReadNs+slower)
			}
		}
		d, err := controller.New(cfg)
		require.NoError(t, err)
		e := sim.New(d)
		e.SecureErase()
		runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "256m", "end_fsync": "1"})
		r := runJob(t, e, map[string]string{"rw": "randread", "bs": "4k", "size": "256m", "number_ios": "2000"})
		return r.Read.Latency.Mean
	}
	base, slow := mean(0), mean(100_000)
	t.Logf("QD1 random read: %.1f µs with read_ns only, %.1f µs with every page type 100 µs slower", base/1e3, slow/1e3)
	require.InDelta(t, 100_000, slow-base, 2_000)
}

// TestOneShotLosesLatchedPages: data programmed into the first page of
// a word line survives a power cut on a multi-pass part (its program
// has ended) but not on a one-shot part, where it waits in the die's
// latches for the word line's last page; the loss is reported as
// corrupted pages and programmed data lost.
func TestOneShotLosesLatchedPages(t *testing.T) {
	for _, multi := range []bool{false, true} {
		cfg := testdrive.Part(t, tlcPart, 1, 2<<30)
		cfg.NAND.TrackData = true
		if multi {
			multiPass(&cfg.NAND.Timing)
		}
		d, err := controller.New(cfg)
		require.NoError(t, err)
		g := cfg.NAND.Geometry
		page := int64(g.PlanesPerDie * g.PageBytes) // one multi-plane page: the FTL programs it once full
		at := int64(0)
		for off := int64(0); off < page; off += 4096 {
			at, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: off, Length: 4096, Token: 7})
			require.NoError(t, err)
		}
		rep, err := d.PowerLoss(at + 1e9) // long after the page's program
		require.NoError(t, err)
		t.Logf("multi-pass %v: %+v", multi, rep)
		require.Zero(t, rep.UnfinishedPages)
		_, ok, err := d.DataToken(0)
		require.NoError(t, err)
		if multi {
			require.Zero(t, rep.CorruptedPages)
			require.Zero(t, rep.LostProgrammedBytes)
			require.True(t, ok, "the lower page's program ended: its data is on flash")
		} else {
			require.Equal(t, 1, rep.CorruptedPages, "the word line's first page was only in the latches")
			require.Equal(t, page, rep.LostProgrammedBytes)
			require.False(t, ok)
		}
		require.NoError(t, d.FTL().CheckInvariants())
	}
}

// TestPowerLossTLCAndQLC is TestPowerLoss on TLC and QLC drives, one-shot
// and multi-pass: with safe erase no flushed data is lost, data on flash
// only with the pages destroyed, and the drive works again.
func TestPowerLossTLCAndQLC(t *testing.T) {
	for _, part := range []string{tlcPart, qlcPart} {
		for _, multi := range []bool{false, true} {
			cfg := testdrive.Part(t, part, 2, 4<<30)
			cfg.NAND.TrackData = true
			cfg.Firmware.GCSafeErase = true
			if multi {
				multiPass(&cfg.NAND.Timing)
			}
			d, err := controller.New(cfg)
			require.NoError(t, err)
			at := fillThenRandomWrites(t, d, true, 20000)
			rep, err := d.PowerLoss(at)
			require.NoError(t, err)
			t.Logf("%s multi-pass %v: %+v", part, multi, rep)
			pageBytes := int64(cfg.NAND.Geometry.PageBytes * cfg.NAND.Geometry.PlanesPerDie)
			require.LessOrEqual(t, rep.LostProgrammedBytes, int64(rep.CorruptedPages)*pageBytes)
			require.Zero(t, rep.LostFlushedBytes, "the fill was flushed: none of it is lost")
			require.Positive(t, rep.LostVolatileBytes)
			_, err = d.Submit(at+rep.MountNs, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096, Token: 99})
			require.NoError(t, err)
			tok, ok, err := d.DataToken(0)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, uint32(99), tok)
			require.NoError(t, d.FTL().CheckInvariants())
		}
	}
}
