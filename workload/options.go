package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/suggest"
)

// The job options: one table (optionTable) of every fio job option
// ftlsim knows, from which Set, Options, OptionHelp, IsFlag, IsHostOnly,
// the job-file parser and sweep's lists of workload-only options are
// derived. Its parts, in options_*.go, follow fio's HOWTO: what a job
// issues and where (Access, Blocks, Target), when and how fast (Timing,
// Pacing, Durability), what its data holds and what it reports
// (Content, Verification, Reporting, SteadyState), and the options of
// the job file and of the host that a simulated drive has no use for.

// OptionKind is the kind of value an option takes.
type OptionKind uint8

// Option kinds.
const (
	KindText   OptionKind = iota // free text
	KindFlag                     // a switch: bare (on), or 0/1, also on a command line
	KindBool                     // 0 or 1 (bare in a job file: 1)
	KindInt                      // an integer in Min..Max
	KindSize                     // bytes: 4k, 1m, … (some also N% of the drive)
	KindTime                     // a time: 10s, 500ms, 2m
	KindChoice                   // one of the words in Values
	KindList                     // a list (bssplit, percentile_list, …)
)

var kindNames = [...]string{"text", "flag", "boolean", "integer", "size", "time", "choice", "list"}

// String names the kind.
func (k OptionKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "OptionKind(" + strconv.Itoa(int(k)) + ")"
}

// Support is what ftlsim does with an option.
type Support uint8

// Supports.
const (
	// Honoured options change the simulated run.
	Honoured Support = iota
	// NotApplied options have no meaning for a simulated drive (the
	// host's I/O engine, CPUs, logging of a job file, …): a job file may
	// set them, and they are reported as not applied.
	NotApplied
	// Refused options are fio's, but ftlsim cannot honour them: setting
	// one is an error that says why.
	Refused
)

var supportNames = [...]string{"honoured", "not applied", "refused"}

// String names the support.
func (s Support) String() string {
	if int(s) < len(supportNames) {
		return supportNames[s]
	}
	return "Support(" + strconv.Itoa(int(s)) + ")"
}

// Option describes one fio job option.
type Option struct {
	// Name is fio's name; Aliases are fio's other names for it.
	Name    string
	Aliases []string
	// Prefix makes Name a family: every option starting with it
	// (engine options such as xnvme_…).
	Prefix bool
	Kind   OptionKind
	// Values is the values allowed, as help and errors give them: the
	// choices, the range of an integer, or the form of the rest.
	Values string
	// Min and Max bound an integer option (KindInt).
	Min, Max int
	// Field is the Job field the option sets, as a path through the
	// sub-structs ("Access.Pattern"); "" when it sets none (the job
	// file's own options, and those not applied).
	Field string
	// Help says what the option does here.
	Help string
	// WorkloadOnly options change only what the host does, not the drive
	// nor its preparation: a study's points that differ only in them
	// fork from one snapshot of their drive.
	WorkloadOnly bool
	// JobFile options are the job file's own: they shape its jobs and
	// groups (numjobs, stonewall, …) or describe a job (description);
	// the file's parser applies them, not Job.Set.
	JobFile bool
	Support Support
	// Reason says why a refused or not-applied option is.
	Reason string

	// The setter: for an integer or a switch with no other effect, the
	// field it sets (range and syntax from the table); else set.
	intField  func(j *Job) *int
	boolField func(j *Job) *bool
	set       func(j *Job, v string) error
}

// optionTable is every job option ftlsim knows, in fio's HOWTO order.
var optionTable = slices.Concat(accessOptions, blockOptions, targetOptions, zoneOptions, placementOptions, timingOptions, pacingOptions,
	durabilityOptions, contentOptions, verifyOptions, reportingOptions, steadyStateOptions,
	jobFileOptions, flowOptions, notAppliedOptions, refusedOptions)

// optionIndex finds an option of optionTable by name or alias. It is
// built once and never changed.
var optionIndex = indexOptions(optionTable)

func indexOptions(table []Option) map[string]*Option {
	m := map[string]*Option{}
	for i := range table {
		o := &table[i]
		if o.Prefix {
			continue
		}
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			if _, dup := m[n]; dup {
				panic("workload: option " + n + " is in the table twice")
			}
			m[n] = o
		}
	}
	return m
}

// OptionTable returns every job option ftlsim knows: those it honours,
// those it reports as not applied and those it refuses.
func OptionTable() []Option { return slices.Clone(optionTable) }

// LookupOption returns the option called name (by fio's name, an alias,
// or a family's prefix).
func LookupOption(name string) (Option, bool) {
	if o, ok := optionIndex[name]; ok {
		return *o, true
	}
	for _, o := range optionTable {
		if o.Prefix && strings.HasPrefix(name, o.Name) {
			return o, true
		}
	}
	return Option{}, false
}

// Names returns the option's name and aliases.
func (o Option) Names() []string { return append([]string{o.Name}, o.Aliases...) }

// Settable reports whether Job.Set takes the option.
func (o Option) Settable() bool { return o.Support == Honoured && !o.JobFile }

// Options returns the names (and aliases) of the job options Set accepts,
// sorted.
func Options() []string {
	var n []string
	for _, o := range optionTable {
		if o.Settable() {
			n = append(n, o.Names()...)
		}
	}
	slices.Sort(n)
	return n
}

// knownNames are the names and aliases of every option of the table
// (families aside): what an unknown name is compared with.
func knownNames() []string {
	var n []string
	for _, o := range optionTable {
		if !o.Prefix {
			n = append(n, o.Names()...)
		}
	}
	return n
}

// OptionHelp returns a one-line description of option name.
func OptionHelp(name string) string {
	o, ok := optionIndex[name]
	switch {
	case !ok:
		return ""
	case name != o.Name:
		return "same as " + o.Name
	case o.Help == "":
		return o.Reason
	}
	return o.Help
}

// IsFlag reports whether option name is a switch that may be given bare.
func IsFlag(name string) bool {
	o, ok := optionIndex[name]
	return ok && o.Kind == KindFlag
}

// IsHostOnly reports whether fio option name is about the host's I/O
// path (engines, CPUs, reporting, error handling), with nothing in a
// simulated drive to apply it to.
func IsHostOnly(name string) bool {
	o, ok := LookupOption(strings.ToLower(name))
	return ok && o.Support == NotApplied
}

// IsWorkloadOnly reports whether option name (a job option, or one of
// the job file's) changes only what the host does, not the drive nor its
// preparation.
func IsWorkloadOnly(name string) bool {
	o, ok := optionIndex[name]
	return ok && o.WorkloadOnly
}

// UnknownError is a name that is none of those known: an option, a
// scenario or a scenario's parameter. It wraps ErrOption.
type UnknownError struct {
	What    string   // "option", "scenario", …
	Name    string   // the name as given, with its prefix (--iodepht)
	Closest []string // the known names closest to it, with the prefix
	Hint    string   // where the known names are listed, when none is close
}

// Error says the name is unknown and gives the closest known names, or
// the hint.
func (e *UnknownError) Error() string {
	s := "unknown " + e.What + " " + e.Name
	switch {
	case len(e.Closest) == 1:
		s += " (did you mean " + e.Closest[0] + "?)"
	case len(e.Closest) > 1:
		s += " (did you mean " + strings.Join(e.Closest[:len(e.Closest)-1], ", ") + " or " + e.Closest[len(e.Closest)-1] + "?)"
	case e.Hint != "":
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap makes an unknown name an invalid option.
func (e *UnknownError) Unwrap() error { return ErrOption }

// Unknown returns the error for name, unknown among known: what it is
// ("option"), prefix written before each name ("--" on a command line),
// and hint, said when no known name is close.
func Unknown(what, name string, known []string, prefix, hint string) *UnknownError {
	c := suggest.Closest(name, known)
	for i := range c {
		c[i] = prefix + c[i]
	}
	return &UnknownError{What: what, Name: prefix + name, Closest: c, Hint: hint}
}

// unknownOption is the error for an option name the table does not have.
func unknownOption(name string) error {
	return Unknown("option", name, knownNames(), "", "ftlsim --help lists the job options")
}

// Set sets one option by its fio name; an unknown name is an error.
func (j *Job) Set(name, value string) error {
	o, ok := optionIndex[name]
	if !ok {
		return unknownOption(name)
	}
	if err := j.set1(o, value); err != nil {
		return fmt.Errorf("%w: %s=%s: %w", ErrOption, o.Name, value, err)
	}
	return nil
}

// set1 sets option o to value and records it as given.
func (j *Job) set1(o *Option, value string) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := o.apply(j, value); err != nil {
		return err
	}
	if j.set == nil {
		j.set = map[string]bool{}
	}
	j.set[o.Name] = true
	return nil
}

// check returns why Job.Set cannot take the option, or nil.
func (o *Option) check() error {
	switch {
	case o.Support == Refused:
		return errors.New(o.Reason)
	case o.Support == NotApplied:
		return fmt.Errorf("not applied to a simulated drive: %s", o.Reason)
	case o.JobFile:
		return errors.New("an option of a job file, not of one job")
	}
	return nil
}

// apply sets the option's value in j.
func (o *Option) apply(j *Job, v string) error {
	switch {
	case o.intField != nil:
		return setInt(o.intField(j), v, o.Min, o.Max)
	case o.boolField != nil:
		return setBool(o.boolField(j), v)
	}
	return o.set(j, v)
}
