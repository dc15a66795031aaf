package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// amount is a size that may be a percentage of the drive.
type amount struct {
	bytes   int64
	percent float64 // > 0 when given as N%
	zones   int64   // > 0 when given as Nz: whole zones (fio's zone unit)
	set     bool
}

func parseAmount(s string) (amount, error) {
	if z, ok := strings.CutSuffix(strings.TrimSpace(s), "z"); ok {
		n, err := strconv.ParseInt(z, 10, 64)
		if err != nil || n < 0 {
			return amount{}, fmt.Errorf("%q: zones must be a whole number (524z)", s)
		}
		return amount{zones: n, set: true}, nil
	}
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		v, err := units.ParseFloat(p)
		if err != nil || v <= 0 || v > 100 {
			return amount{}, fmt.Errorf("%q: a percentage must be in (0, 100]", s)
		}
		return amount{percent: v, set: true}, nil
	}
	b, err := units.ParseSize(s, false)
	if err != nil {
		return amount{}, err
	}
	return amount{bytes: b, set: true}, nil
}

// inZones converts an amount given in zones to bytes of zones of zs
// bytes; false when it is in zones and there is no zone size.
func (a *amount) inZones(zs int64) bool {
	if a.zones == 0 {
		return true
	}
	if zs <= 0 {
		return false
	}
	a.bytes = a.zones * zs
	return true
}

func (a amount) resolve(capacity int64) int64 {
	if a.percent > 0 {
		// fio rounds percentages of the device down to whole 4 KiB blocks.
		return int64(float64(capacity)*a.percent/100) / 4096 * 4096
	}
	return a.bytes
}

// Resolve checks the job against a drive of capacity bytes and fixes its
// byte range. Errors name the option and the allowed range.
func (j *Job) Resolve(capacity int64) error {
	if j == nil {
		return fmt.Errorf("%w: nil job", ErrOption)
	}
	if len(j.BS) == 0 {
		return fmt.Errorf("%w: job %q has no block size (Job.BS is empty: build jobs with NewJob)", ErrOption, j.Name)
	}
	if capacity <= 0 {
		return fmt.Errorf("%w: job %q: drive capacity %d: must be positive", ErrOption, j.Name, capacity)
	}
	for _, a := range []*amount{&j.size, &j.offset, &j.ioSize, &j.offsetIncrement, &j.fileSize} {
		if !a.inZones(j.ZoneSize) {
			return fmt.Errorf("%w: %dz: sizes in zones need the zone size (zonemode=zbd on a zoned drive, or zonesize)", ErrOption, a.zones)
		}
	}
	if j.LBA.Extended() {
		if j.ZBD.On || j.Strided || j.FileSet.Region.Len > 0 {
			return fmt.Errorf("%w: lba_format=%s: zones and files on a namespace with extended LBAs are not modelled", ErrOption, j.LBA)
		}
		if j.BlockAlign%j.LBA.Block() != 0 {
			return fmt.Errorf("%w: blockalign=%d: must be a multiple of the %d-byte extended LBA (lba_format=%s)", ErrOption, j.BlockAlign, j.LBA.Block(), j.LBA)
		}
		capacity = j.LBA.HostBytes(capacity / j.LBA.Data * j.LBA.Data) // the namespace as the host addresses it
	}
	minBS, err := j.smallestBlock()
	if err != nil {
		return err
	}
	if err := j.resolveRange(capacity, minBS); err != nil {
		return err
	}
	if j.startDelayHi > j.StartDelayNs {
		// fio draws a time in the range; here from the job's seed, so a
		// run repeats.
		r := rand.New(rand.NewPCG(j.RandSeed, 0x9e3779b97f4a7c15))
		j.StartDelayNs += r.Int64N(j.startDelayHi - j.StartDelayNs + 1)
		j.startDelayHi = j.StartDelayNs
	}
	if j.Distribution.Kind == Sequence && j.Pattern.Random() {
		for _, b := range j.Distribution.Sequence {
			if (b+1)*minBS > j.Size {
				return fmt.Errorf("%w: random_distribution=%s: block %d is past the %d-byte range (%d blocks of %d bytes)",
					ErrOption, j.Distribution, b, j.Size, j.Size/minBS, minBS)
			}
		}
	}
	if j.noVerifyPhase {
		j.Verify = false
	}
	j.fileNotes()
	if err := j.resolveZones(minBS); err != nil {
		return err
	}
	if j.BlockAlign > j.Size {
		return fmt.Errorf("%w: blockalign=%d: larger than size=%d", ErrOption, j.BlockAlign, j.Size)
	}
	if err := j.resolveIOSize(capacity); err != nil {
		return err
	}
	return j.resolveTiming()
}

// smallestBlock checks the block sizes of every direction and returns
// the smallest.
func (j *Job) smallestBlock() (int64, error) {
	minBS := int64(0)
	for _, b := range slices.Concat(j.BS, j.BSDir[1], j.BSDir[2]) {
		if sector := j.LBA.Block(); b.Bytes <= 0 || b.Bytes%sector != 0 {
			if j.LBA.Extended() {
				return 0, fmt.Errorf("%w: bs=%d: block sizes must be positive multiples of the %d-byte extended LBA (lba_format=%s)", ErrOption, b.Bytes, sector, j.LBA)
			}
			if sector != 512 {
				return 0, fmt.Errorf("%w: bs=%d: block sizes must be positive multiples of the %d-byte LBA (lba_format=%s)", ErrOption, b.Bytes, sector, j.LBA)
			}
			if f, ok := ExtendedFormatOf(j); ok {
				return 0, fmt.Errorf("%w: bs=%d: block sizes must be positive multiples of 512; %d bytes is an extended LBA's (lba_format=%s, a namespace formatted with metadata)", ErrOption, b.Bytes, f.Block(), f)
			}
			return 0, fmt.Errorf("%w: bs=%d: block sizes must be positive multiples of 512", ErrOption, b.Bytes)
		}
		// A zbd trim is a zone reset of a zone's size (fio's
		// zbd_verify_bs), whatever the zone size.
		resets := j.ZBD.On && (j.Pattern == SeqTrim || j.Pattern == RandTrim)
		if b.Bytes > 64<<20 && !resets {
			return 0, fmt.Errorf("%w: bs=%d: at most 64 MiB", ErrOption, b.Bytes)
		}
		if minBS == 0 || b.Bytes < minBS {
			minBS = b.Bytes
		}
	}
	return minBS, nil
}

// resolveRange fixes the job's offset, size and file size on a drive of
// capacity bytes, and checks that its blocks fit in them. A job on files
// laid out by LayOutFiles stays in their region: its offset counts from
// the region's start and its size defaults to the region's end;
// percentages are of the drive.
func (j *Job) resolveRange(capacity, minBS int64) error {
	base, space, where := int64(0), capacity, fmt.Sprintf("the %d-byte drive", capacity)
	if r := j.FileSet.Region; r.Len > 0 {
		base, space = r.Base, r.Len
		where = fmt.Sprintf("the %d bytes of file %s", r.Len, r.File)
		if r.Of > 0 {
			capacity = r.Of // percentages of the job's namespace
		}
	}
	j.Offset = j.offset.resolve(capacity)
	if j.offsetIncrement.set {
		j.Offset += int64(j.Clone) * j.offsetIncrement.resolve(capacity)
	}
	sector := j.LBA.Block()
	if j.Offset%sector != 0 {
		return fmt.Errorf("%w: offset=%d: must be a multiple of %d", ErrOption, j.Offset, sector)
	}
	if j.Offset >= space {
		return fmt.Errorf("%w: offset=%d: %w %s", ErrOption, j.Offset, ErrPastEnd, where)
	}
	files := int64(max(j.Files, 1))
	switch {
	case j.fillDevice:
		j.Size = space - j.Offset
	case j.size.set:
		j.Size = j.size.resolve(capacity)
		if j.fileSize.set {
			// As fio: size is capped at the files' total size.
			j.Size = min(j.Size, files*j.fileSize.resolve(capacity))
		}
	case j.fileSize.set:
		j.Size = files * j.fileSize.resolve(capacity)
	default:
		j.Size = space - j.Offset
	}
	j.FileSize = j.Size / files
	if j.fileSize.set {
		j.FileSize = min(j.fileSize.resolve(capacity), j.FileSize)
	}
	j.FileSize = j.FileSize / sector * sector
	if j.ClampToDrive && j.Offset+j.Size > space {
		j.Size = space - j.Offset
	}
	if j.LBA.Extended() {
		j.Size = j.Size / sector * sector // as fio: whole blocks of size=1g
	}
	if j.Size%sector != 0 {
		return fmt.Errorf("%w: size=%d: must be a multiple of %d", ErrOption, j.Size, sector)
	}
	if j.Size < minBS || j.Offset+j.Size > space {
		return fmt.Errorf("%w: size=%d at offset=%d: must hold one block and end within %s", ErrOption, j.Size, j.Offset, where)
	}
	for _, b := range slices.Concat(j.BS, j.BSDir[1], j.BSDir[2]) {
		if b.Bytes > j.Size {
			return fmt.Errorf("%w: bs=%d: larger than size=%d", ErrOption, b.Bytes, j.Size)
		}
		if j.Files > 1 && b.Bytes > j.FileSize {
			return fmt.Errorf("%w: bs=%d: larger than each of the nrfiles=%d files (%d bytes)", ErrOption, b.Bytes, j.Files, j.FileSize)
		}
	}
	j.Offset += base
	return nil
}

// resolveZones checks zonemode=strided's zones against the range.
func (j *Job) resolveZones(minBS int64) error {
	if !j.Strided {
		return nil
	}
	if j.ZoneSize <= 0 {
		return fmt.Errorf("%w: zonemode=strided needs zonesize", ErrOption)
	}
	if j.ZoneRange == 0 {
		j.ZoneRange = j.ZoneSize
	}
	if j.ZoneRange < minBS || j.ZoneRange > j.Size || j.ZoneRange%512 != 0 || j.ZoneSkip%512 != 0 {
		return fmt.Errorf("%w: zonerange=%d, zoneskip=%d: the zone must hold a block (%d bytes) and fit in size=%d, both multiples of 512",
			ErrOption, j.ZoneRange, j.ZoneSkip, minBS, j.Size)
	}
	return nil
}

// resolveIOSize fixes the bytes the job transfers: io_size, loops, or
// sprandom's one pass over the physical capacity.
func (j *Job) resolveIOSize(capacity int64) error {
	j.IOSize = j.Size
	if j.ioSize.set {
		j.IOSize = j.ioSize.resolve(capacity)
		if j.IOSize <= 0 {
			return fmt.Errorf("%w: io_size=%d: must be positive", ErrOption, j.IOSize)
		}
	}
	if j.Loops > 1 {
		j.IOSize *= int64(j.Loops)
	}
	if j.SPRandom == nil {
		return nil
	}
	if j.Pattern != RandWrite {
		return fmt.Errorf("%w: sprandom: needs rw=randwrite (rw=%s)", ErrOption, j.Pattern)
	}
	if len(j.Sizes(1)) != 1 {
		return fmt.Errorf("%w: sprandom: needs one write block size", ErrOption)
	}
	bs := j.Sizes(1)[0].Bytes
	if err := j.SPRandom.check(j.Size, bs); err != nil {
		return fmt.Errorf("%w: sprandom: %w", ErrOption, err)
	}
	// As fio: the job writes the range's physical size once.
	j.IOSize = sprPhysicalBytes(j.SPRandom.OP, j.Size, bs)
	j.TimeBased = false
	return nil
}

// resolveTiming checks the rate limits and the runtime, ramp and
// time_based against each other.
func (j *Job) resolveTiming() error {
	if j.RateBytes > 0 && j.RateIOPS > 0 {
		return fmt.Errorf("%w: rate and rate_iops: give one", ErrOption)
	}
	if j.TimeBased && j.RuntimeNs <= 0 {
		// fio warns and runs the job as if time_based were not set.
		j.TimeBased = false
		j.Notes = append(j.Notes, "time_based without a runtime is ignored, as fio ignores it")
	}
	if j.RampNs < 0 || (j.RuntimeNs > 0 && j.RampNs >= j.RuntimeNs) {
		return fmt.Errorf("%w: ramp_time=%dns: must be shorter than runtime", ErrOption, j.RampNs)
	}
	return nil
}
