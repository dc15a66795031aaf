package workload

import (
	"fmt"
	"io"
	"os"
)

// JobFile is a parsed fio job file: jobs in order, each in a group. Jobs
// of one group run at the same time; a job with stonewall (or
// wait_for_previous) starts a new group, which runs after the previous one
// has finished — fio's semantics.
type JobFile struct {
	Name string
	Jobs []FileJob
	// Ignored lists, each once in the order first seen, the options the
	// file sets that ftlsim does not apply: host-side options with no
	// meaning for a simulated drive (ioengine, direct, filename, …), log
	// options (given on the command line instead), and buffer options
	// other than the data-content ones (refill_buffers, zero_buffers, …).
	// They are reported, not dropped silently.
	Ignored []string
}

// FileJob is one job of a job file.
type FileJob struct {
	Job   *Job
	Group int // 0-based group number
	// Report is the job's reporting group (fio's groupid): stonewall and
	// new_group start the next. With GroupReporting, the jobs of a
	// reporting group are reported as one (fio's group_reporting).
	Report         int
	GroupReporting bool
	Options        map[string]string // the options that applied, global ones included
	Line           int               // line of the job's section header
	Section        string            // the section's name (clones of numjobs share it)
}

// ParseJobFileName reads a job file from disk.
func ParseJobFileName(file string) (*JobFile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseJobFile(file, f)
}

// ParseJobFile parses fio's INI job format: a [global] section (which
// applies to the jobs after it), job sections, key=value or bare-key
// lines, and ; or # comments (as in fio, a line ends at its first ; or #).
// ${VAR} in a line is replaced by the environment variable VAR (empty when
// unset), and fio's keywords $pagesize, $mb_memory and $ncpus by this
// machine's values, as fio does (see ParseOptions). Errors name the file
// and line.
func ParseJobFile(name string, r io.Reader) (*JobFile, error) {
	return ParseJobFileWith(name, r, ParseOptions{LookupEnv: os.LookupEnv, Host: ThisHost(), ReadFile: ReadIncludedFile})
}

// ParseJobFileEnv is ParseJobFile with the environment given: getenv
// returns the value of a variable ("" when unset).
func ParseJobFileEnv(name string, r io.Reader, getenv func(string) string) (*JobFile, error) {
	return ParseJobFileWith(name, r, ParseOptions{Getenv: getenv, Host: ThisHost(), ReadFile: ReadIncludedFile})
}

// ParseOptions are what a job file is read with besides its text.
type ParseOptions struct {
	// Getenv returns the value of environment variable ("" when unset)
	// for ${VAR}; nil: no variables are set.
	Getenv func(string) string
	// LookupEnv, when set, is used instead of Getenv, and tells an unset
	// variable from an empty one in errors (os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// Host gives the values of fio's keywords $pagesize, $mb_memory and
	// $ncpus (a zero value makes using one an error).
	Host HostFacts
	// Sections, when not empty, runs only the job sections of these names
	// (fio's --section); [global] sections always apply.
	Sections []string
	// ReadFile reads a file an include directive names (os.ReadFile);
	// nil: include directives are refused.
	ReadFile func(name string) ([]byte, error)
	// Defaults are options set before the file's first line, as fio's
	// command-line job options are: the file's own options override
	// them. Host-side ones are reported as not applied, like the file's.
	Defaults [][2]string
}

// Cloned returns clone k of n of job j, as numjobs makes them: its own
// name (j's, with .k when n > 1), random seed and Clone number.
func (j *Job) Cloned(k, n int) *Job {
	c := *j
	c.BS = append([]BlockSize(nil), j.BS...)
	c.RandSeed = j.RandSeed + uint64(k) // clones draw different offsets
	if c.FileSet.section == "" {
		c.FileSet.section = j.Name // $jobname: the section's name
	}
	c.FileSet.Names = append([]string(nil), j.FileSet.Names...)
	if n > 1 {
		c.Name = fmt.Sprintf("%s.%d", j.Name, k)
	}
	c.Clone = k
	return &c
}

// Groups returns the jobs split into their groups, in order (a group
// whose jobs were all dropped, as DropJob does, is not there).
func (jf *JobFile) Groups() [][]FileJob {
	var out [][]FileJob
	for i, j := range jf.Jobs {
		if i == 0 || j.Group != jf.Jobs[i-1].Group {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], j)
	}
	return out
}

// DropJob removes the i-th job from the file: a job fio would not start,
// whose file's other jobs still run.
func (jf *JobFile) DropJob(i int) {
	jf.Jobs = append(jf.Jobs[:i], jf.Jobs[i+1:]...)
}
