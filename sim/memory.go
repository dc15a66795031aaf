package sim

import "unsafe"

// What a run holds beside the drive, for the command's memory estimate,
// and what the fio JSON carries of it.

// MaxFioSeries is the most series intervals a fio job object (Fio,
// FioPlus) carries: ten hours at the default one-second interval. A
// longer series (a week-long trace replay has 600,000 intervals, 80 MB of
// JSON) is left out of the JSON with a note saying so; the device log
// (the command's --write_device_log, the review's CSV) holds it whole.
const MaxFioSeries = 36000

// StreamMemoryBytes estimates the memory one stream of a run holds for
// its statistics: its latency histograms (read, write, trim and sync) and,
// with a series of intervals intervals, that series twice (the result's,
// and a copy: merged, combined or as the fio JSON's columns).
func StreamMemoryBytes(intervals int64) int64 {
	hist := int64(newLatency().h.ByteSize())
	return 4*hist + 2*intervals*int64(unsafe.Sizeof(Interval{}))
}
