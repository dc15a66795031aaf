// Package cli is the ftlsim command as a library: Main parses a command
// line and runs it, writing to the given streams and returning the exit
// status (0 success, 1 a failed run, 2 bad input). cmd/ftlsim is a thin
// wrapper around it; a program that links in its own garbage-collection
// policies calls Main with them so that drive descriptions, --gc and every
// subcommand can name them.
package cli
