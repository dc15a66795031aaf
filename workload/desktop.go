package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
)

// The desktop suite: eight application traces in the spirit of PCMark
// Vantage's HDD test, synthesised from their published descriptions, and
// scored the way the suite scores. Futuremark's traces are not public;
// AnandTech's storage reviews quote the Vantage white paper's description
// of each and the read share of most (anandtech.com/storage/
// showdoc.aspx?i=3311&p=6, "[AT-3311]" below). Everything else — request
// sizes, the share of random requests, queue depths, footprints, volumes
// — is not published, and each value below is an estimate, said so where
// it is set (docs/scenarios.md lists them in a table).
//
// How each trace is replayed (an estimate, after PCMark05, whose RankDisk
// "records disk access events using the device drivers and bypasses the
// file system and the operating system's cache … replaying … on a new
// dummy file", PC Perspective's PCMark05 methodology): every trace has a
// dummy file of its footprint, written sequentially before the traces
// run; its reads and writes fall in that file, back to back (no think
// time), the traces one after another with an idle pause between them.
//
// Scoring: each trace's figure is its data rate over its busy time (bytes
// read and written over the time a request was outstanding: idle
// excluded, as PCMark 10 defines it; PCMark04 "estimated according to the
// time it takes the drive to process the trace and … measured in
// MB/sec"); the suite's score is a scaled geometric mean of the eight
// ("The individual tests are combined using a geometric mean … scaled
// using results from reference systems", PCMark04). Vantage's scaling
// constant is not published, so Score is the geometric mean itself, in
// MB/s: a constant factor cancels in any ratio of two scores, so a fresh
// against a seasoned drive compares as the reviewers' scores do
// (29,879 → 23,252 on the X25-M is the geometric mean of the eight
// per-trace ratios, 0.778).

// DesktopTrace is one trace of the desktop suite.
type DesktopTrace struct {
	// Name is the trace's short name ("defender"); Title the suite's
	// ("HDD1: Windows Defender").
	Name, Title string
	// What is the published description of what the trace does
	// [AT-3311].
	What string
	// ReadPct is the share of requests that read; ReadCited says whether
	// it is the published figure [AT-3311] or an estimate.
	ReadPct   float64
	ReadCited bool
	// ReadBS and WriteBS are the request-size mixes of reads and writes
	// (fio's bssplit syntax); RandomPct is the share of requests at a
	// random offset in the footprint (the rest continue sequentially);
	// QD is the queue depth. Estimates.
	ReadBS, WriteBS string
	RandomPct, QD   int
	// Footprint is the trace's dummy file, Volume the bytes it reads and
	// writes. Estimates.
	Footprint, Volume string
	// Assumed says, in words, what the estimates assume.
	Assumed string
}

// desktopTraces are the eight traces. The read shares are [AT-3311]'s
// (Media Center's and Application Loading's are not published); the rest
// is estimated as each Assumed says. With these volumes the suite reads
// 85.6 % of its bytes, against the ≈87 % [AT-3311] gives for the whole
// suite (by bytes or by requests, not said).
var desktopTraces = []DesktopTrace{
	{"defender", "HDD1: Windows Defender", "a Windows Defender scan", 99.5, true,
		"4k/30:16k/20:64k/50", "4k", 50, 2, "2g", "1g",
		"a scan reads whole files, small and large, one after another: half the requests jump to another file; two outstanding"},
	{"gaming", "HDD2: Gaming", "streaming performance of the game mechanics of Alan Wake", 99.95, true,
		"64k/40:128k/60", "4k", 20, 1, "1g", "1g",
		"a game streams its levels and textures in large, mostly sequential reads, one at a time"},
	{"photo-import", "HDD3: Windows Photo Gallery", "a large collection of images is imported", 84, true,
		"64k/50:128k/50", "4k/60:16k/40", 40, 1, "1g", "512m",
		"the images are read in large requests; thumbnails and the gallery's database are written in small ones"},
	{"vista-startup", "HDD4: Windows Vista startup", "Windows Vista's start-up operations", 85, true,
		"4k/50:16k/25:64k/25", "4k/80:16k/20", 70, 4, "1g", "256m",
		"start-up reads many small files at random, the prefetcher several at once; logs and the registry are written in small requests"},
	{"movie-maker", "HDD5: Windows Movie Maker", "video read and skip, and video write", 54, true,
		"64k/30:128k/70", "64k/30:128k/70", 20, 1, "2g", "512m",
		"a video is read (skipping within it) while another is written, both in large, mostly sequential requests"},
	{"media-center", "HDD6: Windows Media Center", "SDTV playback, SDTV streaming to a Media Center Extender and SDTV recording at once", 67, false,
		"64k/40:128k/60", "64k/40:128k/60", 10, 2, "2g", "512m",
		"two streams read (playback, streaming) and one written (recording): two thirds reads, large sequential requests, two outstanding"},
	{"media-player", "HDD7: Windows Media Player", "music is added to Windows Media Player", 78, true,
		"64k/60:128k/40", "4k/70:16k/30", 40, 1, "1g", "256m",
		"the music files are read in large requests; the library's database is written in small ones"},
	{"app-loading", "HDD8: Application loading", "Word 2007, Photoshop CS2, Internet Explorer 7 and Outlook 2007 are started", 85, false,
		"4k/40:16k/30:64k/30", "4k/80:16k/20", 60, 2, "1g", "256m",
		"as Vista startup: binaries and libraries read, profiles and caches written, mostly small random requests"},
}

// DesktopTraces returns the desktop suite's eight traces.
func DesktopTraces() []DesktopTrace { return append([]DesktopTrace(nil), desktopTraces...) }

// Job returns the trace as a job over its footprint starting at offset
// (bytes), seeded with seed.
func (t DesktopTrace) Job(offset int64, seed int) (*Job, error) {
	return newJobWith(t.Name, "rw", "randrw", "rwmixread", strconv.Itoa(t.RWMixRead()),
		"bssplit", t.ReadBS+","+t.WriteBS, "percentage_random", strconv.Itoa(t.RandomPct), "iodepth", strconv.Itoa(t.QD),
		"offset", strconv.FormatInt(offset, 10), "size", t.Footprint, "io_size", t.Volume, "norandommap", "1",
		"randseed", strconv.Itoa(seed))
}

// RWMixRead is the read share the trace's job runs at: ReadPct in whole
// percent, as fio's rwmixread takes it (Defender's 99.5 % runs at 99 %,
// so that its few writes stay; Gaming's 99.95 % at 100 %: its 0.05 % of
// writes are left out).
func (t DesktopTrace) RWMixRead() int {
	if t.ReadPct > 99.9 {
		return 100
	}
	return int(math.Floor(t.ReadPct))
}

// footprintBytes is the trace's footprint in bytes.
func (t DesktopTrace) footprintBytes() int64 {
	n, err := units.ParseSize(t.Footprint, false)
	if err != nil {
		panic("workload: desktop trace " + t.Name + ": " + err.Error()) // the table above is valid
	}
	return n
}

// DesktopLabel is the label of a measured step of the desktop suite:
// the state the drive was in ("fresh", "season") and the trace or test.
func DesktopLabel(state, test string) string { return state + "/" + test }

// DesktopRandomWrite is the name of the suite's companion test: the
// Anthology's 4 KiB random writes (8 GB span, QD 3, 3 minutes), fresh and
// seasoned.
const DesktopRandomWrite = "4k-random-write"

// GeoMean returns the geometric mean of xs, the suite's score of its
// traces' figures; every figure must be positive and finite.
func GeoMean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, errors.New("workload: the geometric mean of no figures")
	}
	sum := 0.0
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("workload: figure %d is %v: a geometric mean takes positive figures", i, x)
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs))), nil
}

// desktopScenario is the desktop-suite scenario.
func desktopScenario() Scenario {
	var names []string
	for _, t := range desktopTraces {
		names = append(names, t.Name)
	}
	return Scenario{
		Name: "desktop-suite",
		Description: "a desktop trace suite in the spirit of PCMark Vantage's HDD test: its eight application traces (" + strings.Join(names, ", ") +
			") synthesised from their published descriptions, each on its dummy file, scored as MB/s over busy time and, for the suite, their geometric mean; " +
			"with compare=season it runs on the fresh drive and on a seasoned one (see the season scenario) and prints both and the change, " +
			"and the SSD Anthology's 4 KiB random writes (8 GB span, QD 3, 3 min) in both states",
		Params: []Param{{"compare", "none", "season: measure the fresh drive and a seasoned one, and compare; none: the drive in state only"},
			{"state", "fresh", "the state measured when compare=none: fresh (secure erased) or season"},
			{"random_write", "1", "1: also the 4 KiB random writes, 8 GB span, QD 3, in each state (on a drive prepared again); 0: the traces only"},
			{"rw_time", "3m", "length of the 4 KiB random writes"},
			{"trace_idle", "1s", "idle between traces (an estimate: the suite's pause between its tests)"},
			{"image_bs", SeasonImageBS, "the seasoning's image restore extent (see the season scenario)"},
			{"image_random", strconv.Itoa(SeasonImageRandom), "the seasoning's share of random extents in the image restore, percent (see the season scenario)"}},
		build: buildDesktop,
	}
}

// buildDesktop builds the desktop suite's steps.
func buildDesktop(p params) ([]Step, error) {
	var states []string
	switch p["compare"] {
	case "none":
		if p["state"] != "fresh" && p["state"] != "season" {
			return nil, fmt.Errorf("%w: state=%s: allowed fresh or season", ErrOption, p["state"])
		}
		states = []string{p["state"]}
	case "season":
		states = []string{"fresh", "season"}
	default:
		return nil, fmt.Errorf("%w: compare=%s: allowed none or season", ErrOption, p["compare"])
	}
	if p["random_write"] != "0" && p["random_write"] != "1" {
		return nil, fmt.Errorf("%w: random_write=%s: allowed 0 or 1", ErrOption, p["random_write"])
	}
	rw, err := p.dur("rw_time")
	if err != nil {
		return nil, err
	}
	idle, err := units.ParseDuration(p["trace_idle"])
	if err != nil || idle < 0 {
		return nil, fmt.Errorf("%w: trace_idle=%s: must be a duration, 0s for none", ErrOption, p["trace_idle"])
	}
	rnd, err := strconv.Atoi(p["image_random"])
	if err != nil {
		return nil, fmt.Errorf("%w: image_random=%s: must be a percentage from 0 to 100", ErrOption, p["image_random"])
	}
	if _, err := ImageRestoreJob(p["image_bs"], SeasonImageQD, rnd); err != nil {
		return nil, err
	}
	s := &steps{}
	prepare := func(state string) {
		s.erase()
		if state == "season" {
			restore, _ := ImageRestoreJob(p["image_bs"], SeasonImageQD, rnd) // checked above
			s.job("", FillJob())
			s.job("", restore)
		}
	}
	var total int64
	for _, t := range desktopTraces {
		total += t.footprintBytes()
	}
	for _, state := range states {
		prepare(state)
		// The dummy files, written once sequentially.
		s.run("", "dummy-files", "rw", "write", "bs", "128k", "size", strconv.FormatInt(total, 10))
		at := int64(0)
		for i, t := range desktopTraces {
			if i > 0 && idle > 0 {
				s.idle(idle)
			}
			j, err := t.Job(at, 4000+i)
			if err != nil {
				return nil, err
			}
			s.job(DesktopLabel(state, t.Name), j)
			at += t.footprintBytes()
		}
		if p["random_write"] == "1" {
			prepare(state)
			s.run(DesktopLabel(state, DesktopRandomWrite), "rand-write", "rw", "randwrite", "bs", "4k", "iodepth", "3", "size", "8g",
				"runtime", seconds(rw), "time_based", "1", "norandommap", "1")
		}
	}
	return s.done()
}

// DesktopFigures are the desktop suite's figures of one state of the
// drive: each trace's MB/s over its busy time, in the suite's order, the
// score (their geometric mean, in MB/s) and the companion 4 KiB random
// write's MB/s (0 when it did not run).
type DesktopFigures struct {
	State       string
	TraceMBps   []float64
	Score       float64
	RandomWrite float64
}

// TraceTotals are what one measured step of the suite moved: the bytes it
// read and wrote and the time a request was outstanding.
type TraceTotals struct {
	Bytes  int64
	BusyNs int64
}

// ScoreDesktop scores the suite's measured steps, given by their labels
// (DesktopLabel): the figures of each state that ran, fresh first. A
// state with a trace missing (a run stopped part way) has no score.
func ScoreDesktop(steps map[string]TraceTotals) ([]DesktopFigures, error) {
	var out []DesktopFigures
	for _, state := range []string{"fresh", "season"} {
		f := DesktopFigures{State: state}
		ran := false
		for _, t := range desktopTraces {
			tt, ok := steps[DesktopLabel(state, t.Name)]
			if !ok || tt.BusyNs <= 0 {
				continue
			}
			ran = true
			f.TraceMBps = append(f.TraceMBps, float64(tt.Bytes)/(float64(tt.BusyNs)/1e9)/1e6)
		}
		if rw, ok := steps[DesktopLabel(state, DesktopRandomWrite)]; ok && rw.BusyNs > 0 {
			ran = true
			f.RandomWrite = float64(rw.Bytes) / (float64(rw.BusyNs) / 1e9) / 1e6
		}
		if !ran {
			continue
		}
		if len(f.TraceMBps) == len(desktopTraces) {
			s, err := GeoMean(f.TraceMBps)
			if err != nil {
				return nil, err
			}
			f.Score = s
		}
		out = append(out, f)
	}
	return out, nil
}
