package workload

import (
	"fmt"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/blockio"
)

// Generator issues a resolved job's requests. It implements Source. A
// Generator is not safe for concurrent use; its job must not change while
// it runs.
type Generator struct {
	j       *Job
	rng     *rand.Rand
	s       *sampler
	minBS   int64
	align   int64 // random offsets are multiples of this (blockalign, default the smallest size)
	blocks  int64
	cum     [3][]float64 // per direction: cumulative shares of its sizes
	pos     [3]int64     // sequential position per direction
	issued  int64
	bytes   int64
	version uint32
	at      float64    // rate_process=poisson: when the next request is issued (ns)
	run     int        // rw=randread:N: sequential I/Os left before the next random offset
	files   [][3]int64 // nrfiles > 1 (sequential patterns): each file's position per direction
	file    int        // nrfiles > 1: the file of the last I/O
	// fsync/sync: a FLUSH follows every FsyncEvery writes; end_fsync:
	// one ends the job.
	writes     int64
	flushNext  bool
	endFlushed bool
	lastAt     int64
	seqIssued  [3]int64 // random_distribution=sequence: I/Os per direction
	// zonemode=strided: the current zone's start and the bytes moved in it
	zoneLo, zoneBytes int64
	// verify: what the job wrote, in device units of vunit bytes (of the
	// job's addresses: LBAFormat.HostBytes of the drive's unit), and the
	// verify phase's progress; a time-based job's pass starts at
	// passIssued, passBytes
	w                     *written
	vunit                 int64
	verifying             bool
	vNext                 int64
	maxWrite              int64
	passIssued, passBytes int64
	spr                   *sprState // sprandom
	zbd                   *zbdState // zonemode=zbd
	pl                    placer    // dataplacement: the directive writes carry
	zbdEnd                bool      // zonemode=zbd: no zone takes the job's next I/O (its pass ended there)
	zbdEndAt              int64     // zonemode=zbd: the I/Os of the pass when it did
	flowIOs               int64     // flow: the job's I/Os (fio's td->flow_counter)
	flowStalled           bool      // flow: the last Next waited for the group's ratio
	waits                 bool      // zonemode=zbd or flow: its I/Os wait on others (Waits)
	err                   error     // the job cannot be run (Err)
}

// NewGenerator returns a generator for a resolved job.
//
// A job that cannot be run — nil, with no block size, or not resolved
// (its range holds no block) — gives a generator that yields nothing and
// whose Err says why, rather than one that panics.
func NewGenerator(j *Job) *Generator {
	if err := j.runnable(); err != nil {
		return &Generator{j: j, err: err}
	}
	g := &Generator{j: j, rng: rand.New(rand.NewPCG(j.RandSeed, j.RandSeed^0x5851f42d4c957f2d))}
	g.minBS = j.BS[0].Bytes
	for d := range g.cum {
		var c float64
		for _, b := range j.Sizes(d) {
			g.minBS = min(g.minBS, b.Bytes)
			c += b.Percent
			g.cum[d] = append(g.cum[d], c)
		}
	}
	g.align = g.minBS
	if j.BlockAlign > 0 {
		g.align = j.BlockAlign
	}
	g.blocks = j.Size / g.align
	if j.Verify {
		g.w, g.vunit = newWritten(), j.LBA.HostBytes(4096)
		for _, b := range j.Sizes(1) {
			g.maxWrite = max(g.maxWrite, b.Bytes)
		}
	}
	if j.SPRandom != nil {
		g.spr = newSPRState(*j.SPRandom, j.Size, j.Sizes(1)[0].Bytes, g.rng)
	}
	if j.ZBD.On && j.ZBD.Host != nil {
		g.zbd = newZBDState(j)
	}
	g.pl = newPlacer(j)
	g.waits = g.zbd != nil || j.FlowGroup != nil
	g.zoneLo = j.Offset
	if j.Strided {
		g.blocks = max(1, j.ZoneRange/g.align) // random offsets within a zone
	}
	g.s = newSampler(j.Distribution, g.blocks, g.rng, !j.NoRandomMap || j.LFSR)
	for i := range g.pos {
		g.pos[i] = j.Offset
	}
	if j.Files > 1 && !j.Pattern.Random() {
		g.files = make([][3]int64, j.Files)
		for f := range g.files {
			lo := j.Offset + int64(f)*j.FileSize
			g.files[f] = [3]int64{lo, lo, lo}
		}
	}
	return g
}

// Next implements Source.
func (g *Generator) Next(it *Item) bool {
	if !g.waits {
		return g.next(it)
	}
	return g.nextWaiting(it)
}

// nextWaiting is Next for a job whose I/Os wait on others: zonemode=zbd
// (zone locks), flow (the group's ratio).
func (g *Generator) nextWaiting(it *Item) bool {
	g.flowStalled = false
	if g.zbd != nil {
		g.zbd.stalled = false
	}
	if f := g.j.FlowGroup; f != nil && g.flowHeld() {
		g.flowStalled = true
		return false
	}
	ok := g.next(it)
	if !ok {
		return false
	}
	if f := g.j.FlowGroup; f != nil && !(it.Op == blockio.ZoneManage && it.Length == 0) {
		f.ios++
		g.flowIOs++
	}
	if g.zbd != nil {
		g.zbdIssue(it)
	}
	return true
}

func (g *Generator) next(it *Item) bool {
	if g.err != nil {
		return false
	}
	j := g.j
	if g.flushNext {
		g.flushNext = false
		g.flush(it)
		return true
	}
	if g.verifying || g.zbdEnd || (j.NumberIOs > 0 && g.issued-g.passIssued >= j.NumberIOs) ||
		((!j.TimeBased || j.Verify) && j.NumberIOs == 0 && g.bytes-g.passBytes >= j.IOSize) {
		if g.w != nil {
			if g.verifyRead(it) {
				return true
			}
			if j.TimeBased {
				// fio's time-based verify: write and verify in turn
				// until the runtime ends.
				g.passIssued, g.passBytes = g.issued, g.bytes
				g.w = newWritten()
				if g.zbd != nil {
					if g.zbdEnd && g.zbdEndAt == 0 {
						return false // the pass wrote nothing: no zone takes a write
					}
					g.zbdEnd, g.zbd.started = false, false // fio resets the zones again
				}
				return g.next(it)
			}
		}
		if j.EndFsync && !g.endFlushed && g.writes > 0 {
			g.endFlushed = true
			g.flush(it)
			return true
		}
		return false
	}
	op, n, off, implicit, ok := g.pick()
	if !ok {
		if g.zbd != nil && !g.zbd.stalled && !g.zbdEnd {
			// No zone takes the job's next I/O: it ends, then verifies
			// what it wrote (fio's io_u_eof).
			g.zbdEnd, g.zbdEndAt = true, g.issued-g.passIssued
			if g.w != nil {
				return g.next(it)
			}
		}
		return false
	}
	if op == blockio.Trim && j.NumRange > 1 && g.zbd == nil {
		// fio's num_range: one TRIM command of that many ranges, each
		// of a block size at the next offset the pattern gives.
		rs := make([]blockio.Range, 1, j.NumRange)
		rs[0] = blockio.Range{Offset: off, Length: n}
		for len(rs) < j.NumRange {
			o, ok := g.offset(op, n)
			if !ok {
				break
			}
			rs = append(rs, blockio.Range{Offset: o, Length: n})
		}
		it.Ranges = rs
		n *= int64(len(rs))
	} else {
		it.Ranges = nil
	}
	it.At = 0
	switch {
	case j.Poisson && (j.RateIOPS > 0 || j.RateBytes > 0):
		// Exponential gaps with the mean the rate gives.
		it.At = int64(g.at)
		mean := 1e9 / float64(j.RateIOPS)
		if j.RateBytes > 0 {
			mean = float64(n) * 1e9 / float64(j.RateBytes)
		}
		g.at += g.rng.ExpFloat64() * mean
	case j.RateIOPS > 0:
		it.At = g.issued * 1e9 / int64(j.RateIOPS)
	case j.RateBytes > 0:
		it.At = g.bytes * 1e9 / j.RateBytes
	}
	if !implicit {
		g.issued++
		g.bytes += n
	}
	it.Op, it.Offset, it.Length = op, off, n
	it.Zone = blockio.NoZoneAction
	if op == blockio.ZoneManage {
		it.Zone = blockio.ZoneReset // zonemode=zbd: a reset, as fio's trims are
	}
	it.FUA = (op == blockio.Write && j.WriteFUA) || (op == blockio.Read && j.ReadFUA)
	it.Directive, it.DSpec = blockio.NoDirective, 0
	if op == blockio.Write && g.pl.pids != nil {
		it.Directive, it.DSpec = g.pl.next(off)
	}
	it.KeepData = op == blockio.Write && j.KeepData
	it.Verify = false
	if g.w != nil {
		switch {
		case op == blockio.Write && j.KeepData:
			// Its own data stays: what the job wrote there before.
		case op == blockio.Write:
			// A write to part of a unit rewrites the whole unit.
			g.w.write(off/g.vunit, (off+n+g.vunit-1)/g.vunit, g.version+1)
		case op == blockio.Trim && it.Ranges != nil:
			// A trim unmaps only the units it covers whole.
			for _, r := range it.Ranges {
				g.w.cut((r.Offset+g.vunit-1)/g.vunit, (r.Offset+r.Length)/g.vunit)
			}
		case op == blockio.Trim || op == blockio.ZoneManage:
			g.w.cut((off+g.vunit-1)/g.vunit, (off+n)/g.vunit)
		}
	}
	if op == blockio.Write {
		g.version++
		it.Token = g.version
		it.Data = j.Data
		g.writes++
		g.flushNext = j.FsyncEvery > 0 && g.writes%int64(j.FsyncEvery) == 0
	} else {
		it.Token = 0
		it.Data = blockio.Data{}
	}
	g.lastAt = it.At
	return true
}

// pick chooses the next request's direction, size and offset, as the
// job's pattern does; implicit is a zone reset the host issues before a
// write (zonemode=zbd), not one of the job's I/Os. False when the pattern
// has run out.
func (g *Generator) pick() (op blockio.Op, n, off int64, implicit, ok bool) {
	j := g.j
	if g.zbd != nil {
		if op, n, off, implicit, ok, done := g.zbdPrelude(); done {
			return op, n, off, implicit, ok
		}
	}
	switch j.Pattern {
	case SeqRead, RandRead:
		op = blockio.Read
	case SeqWrite, RandWrite:
		op = blockio.Write
	case SeqTrim, RandTrim:
		op = blockio.Trim
	case SeqRW, RandRW:
		op = blockio.Write
		if g.rng.IntN(100) < j.RWMixRead {
			op = blockio.Read
		}
	case TrimWrite:
		// fio's trimwrite trims a block, then writes it.
		op = blockio.Trim
		if g.issued%2 == 1 {
			op = blockio.Write
		}
	}
	if g.zbd != nil {
		op = g.zbdAdjustDir(op)
	}
	sizes, cum := j.BS, g.cum[0]
	if d := int(min(op, blockio.Trim)); j.BSDir[d] != nil {
		sizes, cum = j.BSDir[d], g.cum[d]
	}
	n = sizes[0].Bytes
	if len(sizes) > 1 {
		x := g.rng.Float64() * cum[len(cum)-1]
		for i, c := range cum {
			if x < c {
				n = sizes[i].Bytes
				break
			}
		}
	}
	if g.zbd != nil {
		return g.zbdDraw(op, n)
	}
	off, ok = g.offset(op, n)
	return op, n, off, false, ok
}

// offset returns the offset of the next I/O of direction op and n bytes,
// as the job's pattern places it; false when the pattern has run out
// (a strided sequence past its range).
func (g *Generator) offset(op blockio.Op, n int64) (int64, bool) {
	j := g.j
	base, end := j.Offset, j.Offset+j.Size
	if j.Strided {
		// fio's strided zones: ZoneSize bytes in the current zone, then
		// the next zone, ZoneRange+ZoneSkip on (from the start past the
		// end).
		if g.zoneBytes >= j.ZoneSize {
			g.zoneBytes = 0
			g.zoneLo += j.ZoneRange + j.ZoneSkip
			if g.zoneLo >= end {
				g.zoneLo = j.Offset
			}
			g.pos = [3]int64{g.zoneLo, g.zoneLo, g.zoneLo}
		}
		base, end = g.zoneLo, min(end, g.zoneLo+j.ZoneRange)
		if end-base < n { // a block larger than the zone: ends with it
			base = max(j.Offset, end-n)
		}
		g.zoneBytes += n
	}
	var off int64
	if g.spr != nil && op == blockio.Write {
		// fio's sprandom: new blocks and the previous region's rewrites.
		b, ok := g.spr.next()
		return j.Offset + b*j.Sizes(1)[0].Bytes, ok
	}
	fresh := g.run == 0
	if j.RandomEvery > 1 {
		g.run = (g.run + j.RandomEvery - 1) % j.RandomEvery
	}
	if j.Pattern.Random() && j.Distribution.Kind == Sequence {
		// fio's sequence: the listed blocks in turn (in units of the
		// smallest block size), moving on by the sequence's length each
		// pass with random_sequence_stride; past the range, the job ends.
		seq, d := j.Distribution.Sequence, min(int(op), 2)
		k := g.seqIssued[d]
		b := seq[k%int64(len(seq))]
		if j.SequenceStride {
			b += k / int64(len(seq)) * int64(len(seq))
		}
		off = base + b*g.minBS
		if off+n > end {
			return 0, false
		}
		g.seqIssued[d]++
	} else if j.Pattern.Random() && fresh && (j.PercentageRandom >= 100 || g.rng.IntN(100) < j.PercentageRandom) {
		off = base + g.s.next()*g.align
		if off+n > end {
			off = base + (end-base-n)/g.align*g.align
		}
		g.pos[min(int(op), 2)] = off + n // a sequential run continues from here
	} else if j.Pattern.Random() {
		d := min(int(op), 2)
		off = g.pos[d]
		if off+n > end || off < base {
			off = base
		}
		g.pos[d] = off + n
	} else {
		d := int(op)
		if j.Pattern == TrimWrite {
			d = 0
		}
		if d > 2 {
			d = 2
		}
		lo, hi, pos := base, end, &g.pos
		if g.files != nil {
			// nrfiles: each file is its own region with its own position;
			// file_service_type picks the file of each I/O.
			switch j.FileService {
			case FileRoundRobin:
				g.file = int(g.issued % int64(len(g.files)))
			case FileRandom:
				g.file = g.rng.IntN(len(g.files))
			case FileSequential:
				if g.files[g.file][d]+n > j.Offset+int64(g.file+1)*j.FileSize {
					g.file = (g.file + 1) % len(g.files) // this file is done: the next, from its start
					g.files[g.file][d] = j.Offset + int64(g.file)*j.FileSize
				}
			}
			lo = j.Offset + int64(g.file)*j.FileSize
			hi, pos = lo+j.FileSize, &g.files[g.file]
		}
		off = pos[d]
		switch {
		case off+n > hi:
			off = lo
		case off < lo: // running backwards (rw=read:-8k) wraps to the end
			off = lo + (hi-lo-n)/g.minBS*g.minBS
		}
		if j.Pattern == TrimWrite && op == blockio.Write {
			off = pos[d] - n
			if off < lo {
				off = lo
			}
		} else {
			pos[d] = off + n + j.Skip
		}
	}
	return off, true
}

// verifyRead fills it with the next read of the verify phase: the next
// written extent at or after the phase's position, at most the largest
// write size long. It reports false when everything written has been read
// back.
func (g *Generator) verifyRead(it *Item) bool {
	if !g.verifying {
		g.verifying, g.vNext = true, 0
	}
	start, end, token, ok := g.w.from(g.vNext)
	if !ok {
		g.verifying = false
		return false
	}
	end = min(end, start+max(1, g.maxWrite/g.vunit))
	g.vNext = end
	if g.j.VerifyAnyWrite {
		token = 0 // any write's data will do
	}
	*it = Item{At: g.lastAt, Verify: true, Expect: token}
	it.Op, it.Offset, it.Length = blockio.Read, start*g.vunit, (end-start)*g.vunit
	return true
}

// SetDeviceUnit implements Verifier. Call it before the first Next. On
// an extended LBA format the unit is counted in the job's addresses (a
// 4096-byte unit of 4096+64 blocks is 4160 bytes of them).
func (g *Generator) SetDeviceUnit(bytes int64) {
	if bytes > 0 {
		g.vunit = g.j.LBA.HostBytes(bytes)
	}
}

// flush fills it with a FLUSH command, issued right after the last
// request.
func (g *Generator) flush(it *Item) {
	*it = Item{At: g.lastAt}
	it.Op = blockio.Flush
}

// Issued returns the number of requests issued so far.
func (g *Generator) Issued() int64 { return g.issued }

// ZoneResets returns the zones the job reset that held data (fio's
// zone_resets): a zonemode=zbd job's; -1 for any other job.
func (g *Generator) ZoneResets() int64 {
	if g.zbd == nil {
		return -1
	}
	return g.zbd.resets
}

// Err returns why the generator yields nothing when its job cannot be run
// (see NewGenerator); nil otherwise.
func (g *Generator) Err() error { return g.err }

// runnable checks that j can be generated from: it has block sizes, and
// Resolve has given it a range that holds one.
func (j *Job) runnable() error {
	if j == nil {
		return fmt.Errorf("%w: nil job", ErrOption)
	}
	if len(j.BS) == 0 {
		return fmt.Errorf("%w: job %q has no block size (Job.BS is empty: build jobs with NewJob)", ErrOption, j.Name)
	}
	minBS, err := j.smallestBlock()
	if err != nil {
		return err
	}
	if j.Size < minBS || j.Offset < 0 {
		return fmt.Errorf("%w: job %q is not resolved: its range (offset %d, size %d) holds no %d-byte block (call Job.Resolve with the drive's capacity first)",
			ErrOption, j.Name, j.Offset, j.Size, minBS)
	}
	return nil
}
