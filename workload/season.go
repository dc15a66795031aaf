package workload

import (
	"fmt"
	"strconv"

	"github.com/ftlsim/ftlsim/internal/units"
)

// Seasoning: a used drive as the SSD Anthology simulates one (AnandTech,
// "The SSD Anthology", March 2009, p12 "Simulating a Used Drive";
// shared/reference/methodology.md): a secure erase, a 128 KB sequential
// fill of the whole user area with Iometer, then a sector-by-sector
// restore of a test image over it. "The spare area is left untouched":
// only the user LBAs are written, and nothing is trimmed. The reviewers
// checked the state against a drive that had lived through hundreds of
// benchmark runs: PCMark Vantage's HDD score of the X25-M was 29,879
// fresh, 23,252 seasoned and 23,438 really used.
//
// What is assumed (an estimate, not fitted to any figure): the restore
// writes every user LBA once more, as a sector-by-sector image of the
// partition does, but its order is not published — AnandTech says only
// that it adds randomness (methodology.md: "a second full pass whose
// order adds some randomness"). It is taken here as extents of
// SeasonImageBS written in random order, each once (fio's random map),
// at queue depth SeasonImageQD: the most random reading of that
// sentence, and so the worst realistic state the methodology names.
// Larger extents (the season scenario's image_bs) restore more
// sequentially and leave a less fragmented drive.

// SeasonImageBS and SeasonImageQD are the image restore's extent (the
// size of each of its writes) and queue depth (estimates; see above).
const (
	SeasonImageBS = "64k"
	SeasonImageQD = 4
)

// ImageRestoreJob returns the image restore of the seasoning: writes of
// bs over every user LBA, each extent once, in random order, at queue
// depth qd.
func ImageRestoreJob(bs string, qd int) (*Job, error) {
	if b, err := units.ParseSize(bs, false); err != nil || b < 512 || b%512 != 0 {
		return nil, fmt.Errorf("%w: image_bs=%s: must be a size of whole sectors, at least 512 bytes", ErrOption, bs)
	}
	if qd < 1 || qd > 1024 {
		return nil, fmt.Errorf("%w: image_qd=%d: must be a queue depth from 1 to 1024", ErrOption, qd)
	}
	return newJobWith("image-restore", "rw", "randwrite", "bs", bs, "iodepth", strconv.Itoa(qd))
}

// SeasonJobs returns the jobs that season a secure-erased drive: the
// reviews' sequential fill (FillJob), then the image restore at its
// estimated extent and depth (ImageRestoreJob).
func SeasonJobs() []*Job {
	restore, err := ImageRestoreJob(SeasonImageBS, SeasonImageQD)
	if err != nil {
		panic("workload: " + err.Error()) // the constants above are valid
	}
	return []*Job{FillJob(), restore}
}

// seasonScenario is the season scenario: the seasoning's steps, with the
// restore's extent and depth as parameters.
func seasonScenario() Scenario {
	return Scenario{
		Name: "season",
		Description: "a used drive as the SSD Anthology simulates one (AnandTech, Mar 2009): secure erase, 128 KiB sequential fill of every user LBA at QD 1, " +
			"then a disk image restored sector by sector over it — every LBA once more, in extents of image_bs in random order (the order is not published: " +
			"an estimate) — leaving the spare area untouched (no TRIM)",
		Params: []Param{{"image_bs", SeasonImageBS, "size of the image restore's writes: each extent is written once, in random order"},
			{"image_qd", strconv.Itoa(SeasonImageQD), "queue depth of the image restore"}},
		build: func(p params) ([]Step, error) {
			qd, err := strconv.Atoi(p["image_qd"])
			if err != nil {
				return nil, fmt.Errorf("%w: image_qd=%s: must be a queue depth from 1 to 1024", ErrOption, p["image_qd"])
			}
			restore, err := ImageRestoreJob(p["image_bs"], qd)
			if err != nil {
				return nil, err
			}
			s := &steps{}
			s.erase()
			s.job("", FillJob())
			s.job("restore", restore)
			return s.done()
		},
	}
}

// job appends a step running j (clamped to the drive), measured under
// label when it has one.
func (s *steps) job(label string, j *Job) {
	if s.err != nil {
		return
	}
	j.ClampToDrive = true
	s.out = append(s.out, Step{Kind: RunJob, Job: j, Label: label})
}
