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
// The order of the restore: AnandTech restores the image "onto the
// partition with a sector by sector copy" (p12), and a sector-by-sector
// copy writes the partition in LBA order. The "twist of randomness (and
// realism)" the restore adds, in AnandTech's words, is "to the data" —
// the image's files, fragmented as a used file system leaves them, where
// the fill wrote one contiguous file — and the drive does not see data:
// to the flash the restore is a second sequential pass over every user
// LBA. A measurement agrees: on drives seasoned this way, AnandTech's 2
// MB sequential writes over the whole span "stay the same" on the Intel
// drives (The SSD Relapse, Aug 2009, p21), which a used state written in
// small extents in random order would not allow (the model's sequential
// writes on such a drive move several units for each one written). So
// the restore is a sequential pass by default (SeasonImageRandom 0), in
// writes of SeasonImageBS at queue depth SeasonImageQD (an imaging tool's
// transfer size and depth are not published: estimates). The season
// scenario's image_random sends that share of the writes to a random
// extent not yet written instead (fio's percentage_random with its
// random map): 100 writes every extent once in random order, the most
// random reading of methodology.md's "a second full pass whose order adds
// some randomness", and the worst state it could mean.

// SeasonImageBS and SeasonImageQD are the image restore's extent (the
// size of each of its writes) and queue depth (estimates); SeasonImageRandom
// is the percentage of its writes at a random extent (0: the sector-by-
// sector copy's LBA order; see above).
const (
	SeasonImageBS     = "64k"
	SeasonImageQD     = 4
	SeasonImageRandom = 0
)

// ImageRestoreJob returns the image restore of the seasoning: writes of
// bs over the user LBAs at queue depth qd, randomPct percent of them at a
// random extent not yet written (fio's random map) and the rest
// continuing from the one before (percentage_random): 100 writes every
// extent once in random order, 0 is a sequential pass in LBA order.
func ImageRestoreJob(bs string, qd, randomPct int) (*Job, error) {
	if b, err := units.ParseSize(bs, false); err != nil || b < 512 || b%512 != 0 {
		return nil, fmt.Errorf("%w: image_bs=%s: must be a size of whole sectors, at least 512 bytes", ErrOption, bs)
	}
	if qd < 1 || qd > 1024 {
		return nil, fmt.Errorf("%w: image_qd=%d: must be a queue depth from 1 to 1024", ErrOption, qd)
	}
	if randomPct < 0 || randomPct > 100 {
		return nil, fmt.Errorf("%w: image_random=%d: must be a percentage from 0 to 100", ErrOption, randomPct)
	}
	return newJobWith("image-restore", "rw", "randwrite", "bs", bs, "iodepth", strconv.Itoa(qd), "percentage_random", strconv.Itoa(randomPct))
}

// SeasonJobs returns the jobs that season a secure-erased drive: the
// reviews' sequential fill (FillJob), then the image restore at its
// estimated extent, depth and order (ImageRestoreJob).
func SeasonJobs() []*Job {
	restore, err := ImageRestoreJob(SeasonImageBS, SeasonImageQD, SeasonImageRandom)
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
			"then a disk image restored sector by sector over it — every LBA once more, in LBA order as a sector-by-sector copy writes, in writes of image_bs " +
			"(image_random of them at random extents instead) — leaving the spare area untouched (no TRIM)",
		Params: []Param{{"image_bs", SeasonImageBS, "size of the image restore's writes: each extent is written once, in random order"},
			{"image_qd", strconv.Itoa(SeasonImageQD), "queue depth of the image restore"},
			{"image_random", strconv.Itoa(SeasonImageRandom), "percent of the restore's writes at a random extent not yet written; the rest continue from the write before (0: one sequential pass)"}},
		build: func(p params) ([]Step, error) {
			qd, err := strconv.Atoi(p["image_qd"])
			if err != nil {
				return nil, fmt.Errorf("%w: image_qd=%s: must be a queue depth from 1 to 1024", ErrOption, p["image_qd"])
			}
			rnd, err := strconv.Atoi(p["image_random"])
			if err != nil {
				return nil, fmt.Errorf("%w: image_random=%s: must be a percentage from 0 to 100", ErrOption, p["image_random"])
			}
			restore, err := ImageRestoreJob(p["image_bs"], qd, rnd)
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
