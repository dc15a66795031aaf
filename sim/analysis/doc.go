// Package analysis reads a run's per-interval series (sim.Interval) the
// way reviewers read their charts: SummarizeConsistency for a
// performance-consistency run (the fresh level, the drop, the steady
// state's level, spread and stalls) and SummarizeSustained for a
// sustained sequential write (the burst rate, how much was written at
// full speed, the rate after). Both find the drop by one rule (Drop): the
// fresh level is the best median of three intervals in a row near the
// start, and the drop is the first of three intervals in a row below
// DropShare of it.
//
// Every function is a pure function of the series it is given.
package analysis
