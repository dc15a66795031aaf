// Package report runs the review suite on one or more simulated drives and
// writes a report folder in the reviews' order: a Markdown report and a
// self-contained HTML one (its charts embedded as data: URIs), PNG and
// SVG charts drawn with gonum/plot, CSV of every series (a row an
// interval, data/DRIVE_RUN_STEP.csv) and the fio-shaped JSON of every run
// (data/DRIVE_RUN.json). Several drives in one report share each chart,
// as the reviews' charts compare drives.
//
// The suite: Iometer four corners, TechReport's access patterns at 1-32
// outstanding I/Os, AS-SSD, ATTO, HD Tach, performance consistency (with
// the drive's own spare area and with 25 % more by partitioning), TRIM
// validation, Storage Bench 2011 Heavy and Light and The Destroyer
// (synthesised), and power. Charts: bars that carry their values (four
// corners, AS-SSD, TRIM, Storage Bench, power), IOPS against queue depth
// (access patterns), ATTO and HD Tach curves, the consistency scatter (a
// panel a drive; the whole run on a log time axis, the steady-state window
// on log and linear scales) and the write-latency CDF. Every legend sits
// in a strip beside the panels, never over data.
//
// The suite's length is chosen: the reviews' full durations, or a quick
// mode that keeps each drive's controller, NAND and die count but shrinks
// its capacity and the runs' lengths, for CI and a first look. The text
// states the lengths used, read from the suite's parameters.
//
// Each series is found by the run of the suite (RunName) and the label of
// its measured step (Label). A series the report shows but the runs lack
// is an error wrapping ErrMissingSeries, never a zero bar or an empty line;
// the report's files are rendered in memory first, so that then nothing
// is written, and each file is written whole (a temporary file renamed
// into place).
//
// A review is a built-in study: its points are the suite's runs of each
// drive (coordinates drive and run), and it runs on the sweep package's
// Scheduler, the run organiser sweeps use — the jobs limit, a memory
// budget weighted by each run's estimate (memlimit.EstimateRun), and
// resume keyed by a hash of each run's inputs (the drive's description as
// reviewed, the run, its parameters, the mode). It keeps what it
// computed: the drives and the folder are checked before any run starts,
// and each run, as soon as it finishes, is written to the folder — its
// data files, its full results (runs/DRIVE_RUN.gob) and a line in
// runs/results.jsonl — so that a review stopped part way
// (Options.Context, a failed run) has lost only the runs under way, and
// Options.Resume reads the finished ones back instead of running them
// again. A folder that holds a review's runs is refused without Resume
// (HasReviewError), and with Resume when the options differ from the
// saved review's (runs/review.yaml) so that none of its runs applies;
// when some do (a drive added, the endurance runs added or left out)
// they are read back and Options.Reused is told how the options differ.
//
// With Options.Endurance each drive also runs the accelerated endurance
// procedure (workload.NewEndurance; sim.Engine.Endurance) on its own copy
// with the read-error model on, scheduled, saved (runs/DRIVE_endurance.gob,
// data/DRIVE_endurance.json and .csv) and resumed as the suite's runs are;
// the report then ends with an Endurance section: one chart with every
// drive (read-retry share, p99 read latency and uncorrectable reads against
// TB written, each drive's rated cycles dashed) and a table a row a drive.
// Without it the report is what it was.
//
// The core packages do not import this one: plotting stays out of the
// simulator.
package report
