package sim

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/workload"
)

// EnduranceRound is what one round of an endurance run measured.
type EnduranceRound struct {
	Round int `json:"round"`
	// LifeUsed is the mean erase count over the rated cycles after the
	// round's write pass and its added wear.
	LifeUsed float64 `json:"life_used"`
	// HostBytes is the host bytes written so far: simulated, plus those
	// the added wear stands for (at the round's write amplification, WA);
	// SimulatedHostBytes the simulated part.
	HostBytes          int64 `json:"host_bytes"`
	SimulatedHostBytes int64 `json:"simulated_host_bytes"`
	// WA is the round's write amplification: every page programmed from
	// its write pass's start to its read pass's end — collection during
	// the writes and while the drive idles after them, read reclaim,
	// parity, mapping — per byte the host wrote. The added wear stands
	// for passes of whole rounds, so it converts to host bytes at this
	// WA. WritePassWA counts the write pass alone (the figure a
	// consistency run gives; lower when idle collection does the rest).
	WA          float64 `json:"write_amplification"`
	WritePassWA float64 `json:"write_pass_write_amplification"`
	// The read pass: IOPS; the share of flash reads that needed read
	// retries and the retries per flash read; the 99th percentile and
	// mean read latency; reads ECC could not correct, those rebuilt
	// from RAISE parity, and those the host saw fail.
	ReadIOPS           float64 `json:"read_iops"`
	RetriedReadShare   float64 `json:"retried_read_share"`
	RetriesPerRead     float64 `json:"retries_per_read"`
	ReadP99Ns          int64   `json:"read_p99_ns"`
	ReadMeanNs         float64 `json:"read_mean_ns"`
	UncorrectableReads int64   `json:"uncorrectable_reads"`
	ParityRebuilds     int64   `json:"parity_rebuilds"`
	FailedReads        int64   `json:"failed_reads"`
	// GrownBadGroups is the plane groups retired so far for failed
	// erases.
	GrownBadGroups int64 `json:"grown_bad_groups"`
}

// EnduranceResult is an endurance run: its rounds, why the drive retired,
// and, to compare with, the host bytes the rated cycles allow at the
// mean write amplification measured.
type EnduranceResult struct {
	Rounds  []EnduranceRound `json:"rounds"`
	Retired string           `json:"retired"`
	// RatedHostBytes is RatedCycles × flash bytes / mean WA (the rounds'
	// WA, idle collection included).
	RatedHostBytes int64 `json:"rated_host_bytes"`
	RatedCycles    int   `json:"rated_cycles"`
}

// Endurance runs an accelerated endurance procedure (workload.Endurance)
// on the engine's drive, which should model read errors
// (controller.Firmware.ReadErrors), until the drive retires. Each round
// sets the write and read jobs' randseed to its number.
func (e *Engine) Endurance(p workload.Endurance, hooks Hooks) (*EnduranceResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	cfg := e.ctrl.Config()
	g := cfg.NAND.Geometry
	flashBytes := int64(g.Blocks()) * int64(g.PagesPerBlock) * int64(g.PageBytes)
	rated := cfg.NAND.Timing.RatedCycles
	res := &EnduranceResult{RatedCycles: rated}
	e.SecureErase()
	for _, j := range []*workload.Job{p.Fill, p.Precondition} {
		if _, err := e.RunJob(j, hooks); err != nil {
			return nil, fmt.Errorf("endurance %s: %w", j.Name, err)
		}
	}
	var host, simulated int64
	var waSum float64
	for round := 1; ; round++ {
		if e.Stopped() {
			res.Retired = "interrupted"
			break
		}
		// Each round draws other offsets (fio repeats a job's sequence).
		for _, j := range []*workload.Job{p.Write, p.Read} {
			if err := j.Set("randseed", strconv.Itoa(round)); err != nil {
				return nil, err
			}
		}
		before := e.ctrl.Counters()
		w, err := e.RunJob(p.Write, hooks)
		if errors.Is(err, ftl.ErrReadOnly) {
			res.Retired = "read-only: grown bad blocks used up the spare area"
			break
		}
		if err != nil {
			return nil, fmt.Errorf("endurance round %d write: %w", round, err)
		}
		if err := e.ctrl.AddWear(p.RoundWear); err != nil {
			return nil, err
		}
		if err := e.Idle(p.SettleNs); err != nil {
			return nil, err
		}
		if err := e.ctrl.Bake(p.RetentionNs); err != nil {
			return nil, err
		}
		r, err := e.RunJob(p.Read, hooks)
		if err != nil {
			return nil, fmt.Errorf("endurance round %d read: %w", round, err)
		}
		wa := roundWA(e.ctrl.Counters().Sub(before), int64(g.PageBytes))
		simulated += w.Device.HostWriteBytes
		host += w.Device.HostWriteBytes
		if wa > 0 {
			host += int64(p.RoundWear * float64(rated) * float64(flashBytes) / wa)
		}
		waSum += wa
		d := &r.Device
		reads := d.Flash.Total().ReadPages
		rr := EnduranceRound{
			Round: round, LifeUsed: e.ctrl.Device().Wear().Life, HostBytes: host, SimulatedHostBytes: simulated,
			WA: wa, WritePassWA: w.Device.WriteAmplification,
			ReadIOPS: r.Read.IOPS, ReadMeanNs: r.Read.Latency.Mean,
			ReadP99Ns:          binPercentile(r.Read.Latency.Bins, r.Read.IOs, 99),
			UncorrectableReads: d.UncorrectableReads, ParityRebuilds: d.ParityRebuilds, FailedReads: d.FailedReads,
			GrownBadGroups: e.ctrl.Counters().GrownBadGroups,
		}
		if reads > 0 {
			rr.RetriedReadShare = float64(d.RetriedReads) / float64(reads)
			rr.RetriesPerRead = float64(d.ReadRetries) / float64(reads)
		}
		res.Rounds = append(res.Rounds, rr)
		switch {
		case d.FailedReads > 0:
			res.Retired = "reads the drive could neither correct nor rebuild"
		case rr.LifeUsed >= p.MaxLife:
			res.Retired = fmt.Sprintf("reached %g times the rated cycles", p.MaxLife)
		}
		if res.Retired != "" {
			break
		}
	}
	if n := len(res.Rounds); n > 0 && waSum > 0 {
		res.RatedHostBytes = int64(float64(rated) * float64(flashBytes) / (waSum / float64(n)))
	}
	return res, nil
}

// roundWA is the write amplification of a round whose counters are k:
// pages programmed by every cause per byte the host wrote (0 when it
// wrote nothing).
func roundWA(k ftl.Counters, pageBytes int64) float64 {
	if k.HostWriteBytes == 0 {
		return 0
	}
	return float64(k.Flash.Total().ProgramPages*pageBytes) / float64(k.HostWriteBytes)
}
