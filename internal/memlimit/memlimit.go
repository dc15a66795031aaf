// Package memlimit decides how much memory a command may plan to use, and
// estimates what a run will hold, so that a run too large for the machine
// is refused with a message before it allocates anything rather than
// ending in the Go runtime's "fatal error: out of memory".
//
// The limit is, in order: the value given on the command line
// (--max_memory=SIZE), the environment variable FTLSIM_MAX_MEMORY, or half
// of the memory the machine has available (MemAvailable in /proc/meminfo
// on Linux; Fallback elsewhere). Half, because Go's garbage collector lets
// the heap grow to about twice the live data between collections
// (GOGC=100), and a run allocates transient data (JSON, merged results)
// beside the drive it holds. A limit given is honoured up to the
// machine's memory (MemTotal): more than the machine has is capped there,
// and the limit says so (Limit.From) wherever it is printed.
//
// No other bound applies to the memory: the largest drive is the one
// whose flash holds nand.MaxUnits mapping units (32-bit unit numbers: 16
// TiB of flash in 4 KiB units, about 32 GiB of state), and a description
// past it is refused naming unit_bytes.
//
// What a run holds is estimated once, by EstimateRun: the drive (Drive)
// and its jobs' statistics (Statistics). The command, a sweep's points
// and a review's runs all plan with it.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// EnvVar is the environment variable that sets the limit when the command
// line does not.
const EnvVar = "FTLSIM_MAX_MEMORY"

// Fallback is the limit where the machine's available memory cannot be
// read (systems without /proc/meminfo).
const Fallback = 8 << 30

// ErrTooLarge is wrapped by the errors of runs that need more memory than
// the limit.
var ErrTooLarge = errors.New("not enough memory")

// Limit is a memory budget and where it came from, for messages.
type Limit struct {
	Bytes int64
	// From says where the figure came from: "--max_memory", EnvVar, or
	// the machine's available memory; and, when a limit given was more
	// than the machine's memory, that it was capped there.
	From string
	// Capped reports that the limit given was more than the machine's
	// memory, and Bytes is the machine's.
	Capped bool
}

// String writes the limit with its origin: "11.28 GiB (half of the
// 22.56 GiB this machine has available; --max_memory=SIZE or
// FTLSIM_MAX_MEMORY change it)".
func (l Limit) String() string {
	return fmt.Sprintf("%s (%s)", units.FormatBytes(l.Bytes), l.From)
}

// Resolve returns the limit: flag (the command line's value, "" when not
// given), else getenv(EnvVar), else half of the available memory that
// meminfo (the text of /proc/meminfo; ReadMeminfo) reports, else
// Fallback. A limit given is honoured up to the machine's memory (its
// MemTotal): more is capped there (Limit.Capped). A malformed or
// non-positive size is an error naming where it was given.
func Resolve(flag string, getenv func(string) string, meminfo func() ([]byte, error)) (Limit, error) {
	change := "--max_memory=SIZE or " + EnvVar + " change it"
	var text []byte
	if meminfo != nil {
		if t, err := meminfo(); err == nil {
			text = t
		}
	}
	for _, src := range []struct{ name, v string }{{"--max_memory", flag}, {EnvVar, getenv(EnvVar)}} {
		if src.v == "" {
			continue
		}
		b, err := units.ParseSize(src.v, true)
		if err != nil || b <= 0 {
			return Limit{}, fmt.Errorf("%s=%s: %w: allowed a positive size such as 8GiB or 16GB", src.name, src.v, units.ErrSyntax)
		}
		if total, err := MemTotal(text); err == nil && b > total {
			return Limit{Bytes: total, Capped: true, From: fmt.Sprintf("%s=%s is more than this machine's %s of memory: capped there",
				src.name, src.v, units.FormatBytes(total))}, nil
		}
		return Limit{Bytes: b, From: "set by " + src.name}, nil
	}
	if avail, err := MemAvailable(text); err == nil {
		return Limit{Bytes: avail / 2, From: fmt.Sprintf("half of the %s this machine has available; %s",
			units.FormatBytes(avail), change)}, nil
	}
	return Limit{Bytes: Fallback, From: "this machine's available memory is unknown; " + change}, nil
}

// ReadMeminfo reads /proc/meminfo.
func ReadMeminfo() ([]byte, error) { return os.ReadFile("/proc/meminfo") }

// MemAvailable returns the MemAvailable line of /proc/meminfo's text, in
// bytes: the kernel's estimate of the memory that can be allocated
// without swapping.
func MemAvailable(meminfo []byte) (int64, error) { return meminfoLine(meminfo, "MemAvailable") }

// MemTotal returns the MemTotal line of /proc/meminfo's text, in bytes:
// the machine's memory.
func MemTotal(meminfo []byte) (int64, error) { return meminfoLine(meminfo, "MemTotal") }

// meminfoLine returns the line key of /proc/meminfo's text, in bytes.
func meminfoLine(meminfo []byte, key string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("meminfo: %s:%s: want a number of kB", key, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > 1<<50 {
			return 0, fmt.Errorf("meminfo: %s:%s: want a number of kB", key, rest)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("meminfo: no %s line", key)
}

// Drive returns the memory a drive built from r holds: the controller's
// estimate for its flash (controller.MemoryEstimate: mapping, OOB tags,
// valid bits, block state; CompactMemoryEstimate without tags), what a drive that verifies keeps beside it
// for every device unit (nand.Config.TrackData; trackBytesPerUnit) and
// the compressed sizes of a compressing one (a byte a user unit). On a
// drive whose mapping unit spans pages (nand.Geometry.UnitSpan), a
// mapping entry covers that many device units, and each logical unit
// keeps its size (a byte).
func Drive(r controller.Resolved, trackData bool) int64 {
	dc := r.Config.DeviceConfig()
	g := dc.Geometry
	n := controller.MemoryEstimate(g)
	if dc.DropTags && !trackData { // a drive that tracks data keeps its tags
		n = controller.CompactMemoryEstimate(g)
	}
	units := float64(g.Groups()) * float64(g.UnitsPerGroup())
	if trackData {
		n += int64(trackBytesPerUnit(dc) * units)
	}
	if r.Config.Firmware.Compression {
		n += int64(r.Config.Capacity) / int64(r.Config.NAND.Geometry.UnitBytes)
	}
	if span := r.Config.NAND.Geometry.UnitSpan(); span > 1 && !r.Config.Firmware.Compression {
		n -= int64(units * 4 * (1 - 1/float64(span)))
		n += int64(r.Config.Capacity) / int64(r.Config.NAND.Geometry.UnitBytes)
	}
	return n
}

// trackBytesPerUnit is what tracking data (nand.Config.TrackData) costs
// a device unit of flash cfg: measured, as the difference between the
// memory of a device of one block a plane with and without it (both
// keeping their OOB tags, as a drive that tracks data does), so that the
// estimate follows what the nand package keeps. Where no such device can be built, it
// assumes two 32-bit words a unit.
func trackBytesPerUnit(cfg nand.Config) float64 {
	cfg.Geometry.BlocksPerPlane = 1
	cfg.TrackData, cfg.DropTags = false, false // tags kept, as a drive that tracks data keeps them
	without, err := nand.New(cfg)
	if err != nil {
		return 8
	}
	cfg.TrackData = true
	with, err := nand.New(cfg)
	if err != nil {
		return 8
	}
	g := cfg.Geometry
	return float64(with.MemoryBytes()-without.MemoryBytes()) / (float64(g.Groups()) * float64(g.UnitsPerGroup()))
}
