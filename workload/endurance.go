package workload

import (
	"fmt"
	"math"
)

// Endurance is an accelerated endurance procedure: after a secure erase,
// Fill and Precondition (random writes that bring the drive to its
// steady-state write amplification), rounds repeat until the drive
// retires. Each round
//   - runs Write (random writes over the whole drive), whose write
//     amplification it measures and whose erases can fail and grow bad
//     blocks;
//   - adds RoundWear of the rated P/E cycles to every block at once: the
//     passes the round stands for without simulating them (so the host
//     bytes they wrote are RoundWear·cycles·flash bytes / WA);
//   - lets the drive sit idle for SettleNs, so that the read pass does
//     not wait behind the write pass's flash work;
//   - ages the data by RetentionNs (a bake, as a drive left unpowered);
//   - runs Read (random reads over the whole drive) and measures what
//     the aged, worn flash costs: read retries, latency, uncorrectable
//     reads, RAISE rebuilds.
//
// The drive retires when it turns read-only (grown bad blocks used up the
// spare area), when Read meets data it can neither correct nor rebuild,
// or at MaxLife of the rated cycles.
type Endurance struct {
	Fill, Precondition, Write, Read *Job
	RoundWear                       float64
	SettleNs, RetentionNs           int64
	MaxLife                         float64
}

// NewEndurance returns the procedure with its defaults: the
// preconditioning writes the drive's capacity once in 4 KiB random writes
// at QD 32 (half of it with quick); each round writes an eighth of the
// drive (a thirty-second with quick) the same way, stands for a tenth of
// the rated cycles (a quarter with quick), idles 60 s, bakes a month and
// reads for 2 s (0.5 s with quick); at most 10 times the rated cycles.
func NewEndurance(quick bool) (Endurance, error) {
	pre, share, wear, read := "100%", "12.5%", 0.1, "2s"
	if quick {
		pre, share, wear, read = "50%", "3.125%", 0.25, "500ms"
	}
	fill, err := newJobWith("fill", "rw", "write", "bs", "128k")
	if err != nil {
		return Endurance{}, err
	}
	precondition, err := newJobWith("precondition", "rw", "randwrite", "bs", "4k", "iodepth", "32", "io_size", pre, "norandommap", "1", "randseed", "0")
	if err != nil {
		return Endurance{}, err
	}
	write, err := newJobWith("endurance-write", "rw", "randwrite", "bs", "4k", "iodepth", "32", "io_size", share, "norandommap", "1")
	if err != nil {
		return Endurance{}, err
	}
	rd, err := newJobWith("endurance-read", "rw", "randread", "bs", "4k", "iodepth", "32", "runtime", read, "time_based", "1", "norandommap", "1")
	if err != nil {
		return Endurance{}, err
	}
	for _, j := range []*Job{fill, precondition, write, rd} {
		j.ClampToDrive = true
	}
	return Endurance{Fill: fill, Precondition: precondition, Write: write, Read: rd, RoundWear: wear, SettleNs: 60e9, RetentionNs: 30 * 24 * 3600 * 1e9, MaxLife: 10}, nil
}

// Validate reports the first field out of range.
func (e Endurance) Validate() error {
	switch {
	case e.Fill == nil || e.Precondition == nil || e.Write == nil || e.Read == nil:
		return fmt.Errorf("%w: endurance needs its fill, precondition, write and read jobs", ErrOption)
	case e.SettleNs < 0 || e.SettleNs > 24*3600*1e9:
		return fmt.Errorf("%w: endurance settle = %d ns, allowed 0..24h", ErrOption, e.SettleNs)
	case math.IsNaN(e.RoundWear) || e.RoundWear < 0.001 || e.RoundWear > 10:
		return fmt.Errorf("%w: endurance round_wear = %g, allowed 0.001..10 of the rated cycles", ErrOption, e.RoundWear)
	case e.RetentionNs < 0 || e.RetentionNs > 100*365*24*3600*1e9:
		return fmt.Errorf("%w: endurance retention = %d ns, allowed 0..100y", ErrOption, e.RetentionNs)
	case math.IsNaN(e.MaxLife) || e.MaxLife < e.RoundWear || e.MaxLife > 100:
		return fmt.Errorf("%w: endurance max_life = %g, allowed %g..100 of the rated cycles", ErrOption, e.MaxLife, e.RoundWear)
	}
	return nil
}
