// Package report runs the review suite on one or more simulated drives and
// writes a report folder in the reviews' order: a Markdown report and a
// self-contained HTML one, PNG and SVG charts drawn with gonum/plot
// (consistency scatter on log and linear scales with the steady-state
// window, ATTO curves, HD Tach curves, four-corner bars, latency CDF), CSV
// of every series and the fio-shaped JSON of every run. Several drives in
// one report share each chart, as the reviews' charts compare drives.
//
// The suite's length is chosen: the reviews' full durations, or a quick
// mode that keeps each drive's controller, NAND and die count but shrinks
// its capacity and the runs' lengths, for CI and a first look.
//
// Each series is found by the run of the suite (RunName) and the label of
// its measured step (Label). A series the report shows but the runs lack
// is an error wrapping ErrMissingSeries, never a zero bar or an empty line.
//
// The core packages do not import this one: plotting stays out of the
// simulator.
package report
