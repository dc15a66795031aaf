package controller

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// ErrUncorrectable is returned by Submit, with the time the command
// completes, for a read some of whose data neither ECC, read retry nor
// RAISE parity could recover: the command completes with a medium error
// (the host sees EIO) and the drive goes on.
var ErrUncorrectable = errors.New("controller: uncorrectable read")

// readErrors is the firmware's handling of read errors
// (Firmware.ReadErrors): every flash read it decodes draws, from the
// drive's seed, whether its raw bit errors exceed what ECC corrects; a
// read that fails is sensed again with the part's read-retry steps, each
// dividing the retention and read-disturb part of the raw bit-error rate
// by its gain (nand.Reliability); one that fails them all is
// rebuilt from RAISE parity (reading the same bytes of the other pages of
// its stripe on the other dies) or is uncorrectable. Without RAISE, data
// garbage collection could not read is lost: the controller reports it to
// the FTL (ftl.FTL.ReportUnreadable), and the logical units it held read
// as errors until the host writes or trims them (ftl.Location.Lost).
//
// Simplifications: a block's retention age is the time since its last
// program (its earlier pages are older); copies made with copyback
// (Firmware.GCCopyback) bypass the ECC engine and are not decoded;
// mapping-page reads and the reads of a RAISE rebuild are taken as
// correct and do not count as read disturb.
type readErrors struct {
	rel   nand.Reliability
	rated int
	ecc   eccTable
	safe  float64   // below this RBER no read can fail (see safeRBER)
	div   []float64 // per retry step s (0: the first read): 1/gain^s
	rng   *rand.Rand
	// read reclaim (Firmware.ReadReclaimReads): the reads since erase
	// that trigger a refresh, and the groups waiting for one
	reclaim uint32
	queue   []int32
	np      int
}

// newReadErrors sets up read errors for a drive built from cfg (nil when
// it does not model them).
func newReadErrors(cfg *Config) *readErrors {
	fw := &cfg.Firmware
	if !fw.ReadErrors {
		return nil
	}
	rel := cfg.NAND.Reliability
	r := &readErrors{
		rel: rel, rated: cfg.NAND.Timing.RatedCycles,
		ecc:     newECCTable(ECC{Bits: fw.ECCBits, CodewordBytes: int(fw.ECCCodeword)}),
		rng:     rand.New(rand.NewPCG(cfg.Seed, 0x0ecc0e44)),
		reclaim: uint32(fw.ReadReclaimReads),
		queue:   make([]int32, 0, maxReclaimQueue),
		np:      cfg.NAND.Geometry.PlanesPerDie,
	}
	g := cfg.NAND.Geometry
	r.safe = safeRBER(r.ecc.e, int64(g.PlanesPerDie)*int64(g.PageBytes))
	r.div = make([]float64, rel.RetrySteps+1)
	for s := range r.div {
		r.div[s] = math.Pow(rel.Gain(), -float64(s))
	}
	return r
}

// safeRBER returns a raw bit-error rate below which a read of up to n
// bytes fails with probability under 1e-30 (and so, drawn against a
// float64 uniform variate, never in practice): reads of healthy blocks
// skip the draw.
func safeRBER(e ECC, n int64) float64 {
	k := float64((n + int64(e.CodewordBytes) - 1) / int64(e.CodewordBytes))
	lo, hi := -40.0, -1.0 // log2 of the rber
	if k*e.CodewordFailure(math.Exp2(lo)) >= 1e-30 {
		return 0
	}
	for range 60 {
		mid := (lo + hi) / 2
		if k*e.CodewordFailure(math.Exp2(mid)) < 1e-30 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp2(lo)
}

// maxReclaimQueue bounds the groups waiting for read reclaim; a group
// left out is queued again by its next read.
const maxReclaimQueue = 16

// readOutcome decodes flash read op (an OpRead or OpTransfer of a page,
// booked to end at done): it reports each sense of the page to the FTL
// for read disturb (ftl.FTL.ReportSensed), draws whether ECC corrects
// it, books the read-retry steps it needs and, when none is enough, the
// RAISE rebuild. It returns when the data is in the
// controller and whether it is correct (false: it is lost).
func (c *Controller) readOutcome(op *ftl.Op, done int64) (int64, bool) {
	r, dev := c.re, c.dev
	pb, die, planes := int(op.Block), int(op.Die), int(op.Planes)
	if op.Kind == ftl.OpRead {
		c.ftl.ReportSensed(op)
		if r.reclaim > 0 && dev.ReadsSinceErase(pb) >= r.reclaim {
			r.enqueue(int32(pb / r.np))
		}
	}
	wear, shift := r.rel.Parts(r.rated, dev.EraseCount(pb), done-dev.ProgramTime(pb), dev.ReadsSinceErase(pb))
	n := int64(op.Units) * c.slot
	if wear+shift < r.safe {
		return done, true
	}
	u, logU := r.rng.Float64(), math.NaN()
	if r.ecc.corrects(u, &logU, min(0.5, wear+shift), n) {
		return done, true
	}
	if len(r.div) > 1 {
		c.cnt.RetriedReads++
	}
	for s := 1; s < len(r.div); s++ {
		// Sensed again with the next read-retry voltages: the same draw
		// decides, so a read that needed s steps needs at least s.
		c.cnt.ReadRetries++
		done = c.readPage(op, planes, int(n), done)
		c.ftl.ReportSensed(op)
		if r.ecc.corrects(u, &logU, min(0.5, wear+shift*r.div[s]), n) {
			return done, true
		}
	}
	c.cnt.UncorrectableReads++
	if c.raise.stripe == 0 {
		return done, false
	}
	// RAISE: the same bytes of the stripe's other pages (data and
	// parity), one on each of the next dies, XORed together.
	c.cnt.ParityRebuilds++
	end := done
	for i := 1; i < c.raise.stripe; i++ {
		end = max(end, c.tl.Read((die+i)%c.raise.dies, 1, int(n), done))
	}
	return end, true
}

func (r *readErrors) enqueue(g int32) {
	for _, q := range r.queue {
		if q == g {
			return
		}
	}
	if len(r.queue) < cap(r.queue) {
		r.queue = append(r.queue, g)
	}
}

// reclaimQueued refreshes, from at, the groups whose reads since erase
// reached Firmware.ReadReclaimReads: their valid data moves out and they
// are erased (ftl.FTL.Refresh). A group that cannot be refreshed now (open,
// being cleaned, or its die short of free groups) is queued again by its
// next read.
func (c *Controller) reclaimQueued(at int64) error {
	r := c.re
	for len(r.queue) > 0 {
		g := r.queue[len(r.queue)-1]
		r.queue = r.queue[:len(r.queue)-1]
		_, err := c.ftl.Refresh(int(g))
		c.drain(at)
		if err != nil {
			return fmt.Errorf("read reclaim of group %d: %w", g, err)
		}
	}
	return nil
}

// PreWear starts the drive share of its rated P/E cycles into its life:
// every block's erase count is raised to share × rated cycles (as if it
// had been written that much before), so that wear-out faults — read
// errors and blocks going bad — show in a short run. Allowed 0..10.
func (c *Controller) PreWear(share float64) error {
	if math.IsNaN(share) || share < 0 || share > 10 {
		return fmt.Errorf("%w: pre-wear of %g of the rated cycles, allowed 0..10", ErrConfig, share)
	}
	return c.ftl.PreWear(int(math.Round(share * float64(c.cfg.NAND.Timing.RatedCycles))))
}

// AddWear adds share of the rated cycles to every block's erase count
// without erasing anything: an accelerated endurance run stands for the
// passes it does not simulate with it.
func (c *Controller) AddWear(share float64) error {
	if math.IsNaN(share) || share < 0 || share > 10 {
		return fmt.Errorf("%w: added wear of %g of the rated cycles, allowed 0..10", ErrConfig, share)
	}
	return c.ftl.AddWear(int(math.Round(share * float64(c.cfg.NAND.Timing.RatedCycles))))
}

// Bake ages the data the drive holds by ns of retention without time
// passing, as a drive left unpowered (or a retention bake) does: later
// reads see their data that much older. It matters only on a drive that
// models read errors (Firmware.ReadErrors).
func (c *Controller) Bake(ns int64) error {
	if ns < 0 {
		return fmt.Errorf("%w: bake of %d ns, allowed 0 or more", ErrConfig, ns)
	}
	c.ftl.Bake(ns)
	return nil
}
