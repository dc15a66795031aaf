// Package cli is the ftlsim command as a library: Main parses a command
// line and runs it, writing to the given streams and returning the exit
// status (0 success, 1 a failed run, 2 bad input, 130 a run stopped by
// SIGINT or SIGTERM, whose results so far are written and marked
// interrupted). Every file the command writes is written whole or not at
// all, so a failed run leaves existing files as they were. cmd/ftlsim is
// a thin wrapper around it; a program that links in its own
// garbage-collection policies calls Main with them so that drive
// descriptions, --gc and every subcommand can name them.
//
// --save_state, --load_state and --prepare_only (snapshot.go) save a
// prepared drive to a file and start runs from it; the file format is
// package internal/snapshot's.
package cli
