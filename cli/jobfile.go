package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// runFile runs a fio job file: its groups in order, the jobs of a group at
// the same time, after a secure erase and the precondition.
func runFile(args []string, stdout, stderr io.Writer, set settings) error {
	o, err := parseArgs(args, modeJobFile, set.policies)
	if err != nil {
		return err
	}
	if st, err := os.Stat(o.traceFile); err == nil && st.IsDir() {
		return usage("run %s: is a folder; allowed a fio job file", o.traceFile)
	}
	f, err := os.Open(o.traceFile)
	if err != nil {
		return usageError{err}
	}
	defer f.Close()
	jf, err := workload.ParseJobFileWith(o.traceFile, f, workload.ParseOptions{
		LookupEnv: os.LookupEnv, Host: workload.ThisHost(), ReadFile: workload.ReadIncludedFile, Sections: o.sections, Defaults: o.fileDefaults})
	if err != nil {
		return usageError{err} // the file's content, or reading it
	}
	if len(jf.Ignored) > 0 {
		fmt.Fprintf(stderr, "ftlsim: %s: not applied (no meaning for a simulated drive, or not modelled yet): %s\n",
			jf.Name, strings.Join(jf.Ignored, ", "))
	}
	return runJobFile(o, jf, stdout, stderr, set)
}

// runJobFile runs the jobs of jf: its groups in order, the jobs of a group
// at the same time, after a secure erase and the precondition; a
// reporting group with group_reporting is reported as one job.
func runJobFile(o *options, jf *workload.JobFile, stdout, stderr io.Writer, set settings) error {
	c, notStarted, err := fileDrive(o, jf, stderr, set)
	if err != nil {
		return err
	}
	if o.prepareOnly {
		return prepareOnly(o, c, stdout, stderr, set)
	}
	outs, err := newOutputs(o, stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	if o.deviceLog != "" {
		if err := check("write_device_log="+o.deviceLog, deviceLogName(o, jf, 1)); err != nil {
			return err
		}
	}
	wall := time.Now()
	e := sim.New(c)
	defer stopOn(set.ctx, e)()
	prep, err := prepareDrive(e, o, stderr)
	if err != nil {
		return err
	}
	c = e.Controller() // restored in place by --load_state; the same drive
	results, err := runGroups(e, o, jf, outs)
	if err != nil {
		return err
	}
	noteOmittedSeries(o, stderr, results...)
	fioJobs, texts := fileReports(o, jf.Jobs[:len(results)], results, outs.report)
	out := outs.report
	switch {
	case o.format == "terse":
		err = fioreport.WriteTerse(out, o.drive, fioJobs...)
	case o.json():
		err = writeReport(out, map[string]string{"drive": o.drive, "precondition": o.precondition.Kind.String(), "jobfile": jf.Name}, fioJobs...)
	default:
		writeDriveText(out, o, c, prep)
		for _, t := range texts {
			t()
		}
		writeDiskStats(out, fioreport.SumDiskUtil(o.drive, fioJobs...))
		for _, n := range fioreport.SumNamespaces(fioJobs...) {
			fmt.Fprintf(out, "namespace %d (%s): read %s at %s/s, %.0f IOPS; wrote %s at %s/s, %.0f IOPS\n", n.ID, strings.Join(n.Jobs, ", "),
				units.FormatBytes(n.ReadBytes), units.FormatBytes(n.ReadBWBytes), n.ReadIOPS, units.FormatBytes(n.WriteBytes), units.FormatBytes(n.WriteBWBytes), n.WriteIOPS)
		}
		fmt.Fprintf(out, "simulated %.1f s in %.2f s of wall time\n", float64(e.Now())/1e9, time.Since(wall).Seconds())
	}
	if err != nil {
		return err
	}
	if err := outs.commit(); err != nil {
		return err
	}
	err = verifyError(results...)
	if err == nil && len(notStarted) > 0 {
		err = fmt.Errorf("%w: %s (the offset past the end of the drive)", errNotStarted, strings.Join(notStarted, ", "))
	}
	return interrupted(err, results...)
}

// errNotStarted is returned, after the results are written, when jobs of
// a file did not start, as fio does not start a job on a block device
// whose offset is past the device's end.
var errNotStarted = errors.New("jobs did not start")

// fileDrive builds the drive the jobs of jf run on and resolves each job
// against it, printing each section's notes once. A job whose offset is
// past the end of the drive (not of a file: fio extends files) is
// dropped with fio's message, as fio does not start it; its name is
// among those returned, and the file's other jobs run. If none is left,
// the first such job's error is returned.
func fileDrive(o *options, jf *workload.JobFile, stderr io.Writer, set settings) (*controller.Controller, []string, error) {
	for _, j := range jf.Jobs {
		o.trackData = o.trackData || j.Job.Verify || len(j.Job.PowerLossNs) > 0
	}
	jobs := make([]*workload.Job, len(jf.Jobs))
	for i, j := range jf.Jobs {
		jobs[i] = j.Job
	}
	chooseZonedDrive(o, jf)
	c, err := buildDrive(o, jobs, o.intervalMsec*1e6)
	if err != nil {
		return nil, nil, err
	}
	if err := checkZonedJobs(jf, c, o.drive); err != nil {
		return nil, nil, err
	}
	if l := layoutOf(c); l != nil {
		host := workload.NewZoneHost(*l) // the zones as the run's jobs see them, shared
		for _, j := range jf.Jobs {
			if j.Job.ZBD.On {
				j.Job.ZBD.Host = host
			}
		}
	}
	var ns []workload.Region
	for _, n := range c.Namespaces() {
		ns = append(ns, workload.Region{Base: n.Offset, Len: n.Size, File: fmt.Sprintf("namespace %d", n.ID)})
	}
	jf.LayOutFlows()
	if err := jf.LayOutNamespaces(c.CapacityBytes(), ns); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", jf.Name, err)
	}
	lbaFormat(o, jf, stderr)
	noted := map[string]bool{}
	var notStarted, messages []string
	var firstPastEnd error
	for i := 0; i < len(jf.Jobs); i++ {
		j := jf.Jobs[i]
		if err := j.Job.Resolve(c.CapacityBytes()); err != nil {
			err = fmt.Errorf("%s:%d: [%s]: %w", jf.Name, j.Line, j.Job.Name, err)
			if !errors.Is(err, workload.ErrPastEnd) || j.Job.FileSet.Region.Len > 0 {
				return nil, nil, err
			}
			// fio's message (filesetup.c), and the reason.
			messages = append(messages, fmt.Sprintf("ftlsim: %s:%d: %s: you need to specify valid offset= (offset=%d is past the end of the %d-byte drive; fio does not start the job, and runs the others)",
				jf.Name, j.Line, j.Job.Name, j.Job.Offset, c.CapacityBytes()))
			notStarted = append(notStarted, j.Job.Name)
			firstPastEnd = cmp.Or(firstPastEnd, err)
			jf.DropJob(i)
			i--
			continue
		}
		if h := j.Job.ZBD.Host; h != nil {
			if err := h.Join(j.Job); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: [%s]: %w", jf.Name, j.Line, j.Job.Name, err)
			}
		}
		for _, n := range j.Job.Notes {
			if msg := fmt.Sprintf("ftlsim: %s:%d: [%s]: note: %s", jf.Name, j.Line, j.Section, n); !noted[msg] {
				noted[msg] = true // once for a section's numjobs clones
				fmt.Fprintln(stderr, msg)
			}
		}
		if cap := set.runtimeCap; cap > 0 && (j.Job.RuntimeNs == 0 || j.Job.RuntimeNs > cap) {
			j.Job.RuntimeNs = cap
		}
	}
	if len(jf.Jobs) == 0 {
		return nil, nil, firstPastEnd // bad input: one line
	}
	for _, m := range messages {
		fmt.Fprintln(stderr, m)
	}
	return c, notStarted, nil
}

// lbaFormat gives every job of jf the namespace's LBA format: the one
// --lba_format sets or, without it, the extended format a job's block
// sizes name (fio's uring-cmd-pi-ext.fio: bs=4160 on a namespace
// formatted 4096+64), said in a note.
func lbaFormat(o *options, jf *workload.JobFile, stderr io.Writer) {
	f := o.lbaFormat
	if !o.lbaFormatGiven {
		for _, j := range jf.Jobs {
			if x, ok := workload.ExtendedFormatOf(j.Job); ok {
				f = x
				fmt.Fprintf(stderr, "ftlsim: %s:%d: [%s]: note: bs=%d is a multiple of the %d-byte block of the extended LBA format %s (%d data bytes and %d of metadata each): the namespace is formatted so, as the file's device must be (--lba_format sets another)\n",
					jf.Name, j.Line, j.Section, j.Job.BS[0].Bytes, f.Block(), f, f.Data, f.Meta)
				break
			}
		}
	}
	for _, j := range jf.Jobs {
		j.Job.LBA = f
	}
}

// deviceLogName is the device log of the n-th job (from 1): the file
// --write_device_log names, with .n when the file has several jobs.
func deviceLogName(o *options, jf *workload.JobFile, n int) string {
	if len(jf.Jobs) > 1 {
		return fmt.Sprintf("%s.%d", o.deviceLog, n)
	}
	return o.deviceLog
}

// runGroups runs the groups of jf in order, writing each job's logs, and
// returns the results of the jobs that ran: a stopped run does not run,
// nor report, the groups after.
func runGroups(e *sim.Engine, o *options, jf *workload.JobFile, outs *outputs) ([]*sim.Result, error) {
	var results []*sim.Result
	n := 0
	for _, group := range jf.Groups() {
		streams := make([]sim.Stream, len(group))
		logs := make([]*logSet, len(group))
		for i, j := range group {
			n++
			var err error
			if logs[i], err = openLogsN(o, j.Job.Logs, j.Job.Name, n, outs); err != nil {
				return nil, err
			}
			hooks := sim.Hooks{}
			if logs[i].active() {
				hooks.OnComplete = logs[i].complete
			}
			so := sim.JobOptions(j.Job)
			so.IntervalNs, so.Hooks = o.intervalMsec*1e6, hooks
			streams[i] = sim.Stream{Source: workload.NewGenerator(j.Job), Options: so}
		}
		if err := o.faults.bake(e); err != nil {
			return nil, err
		}
		rs, err := e.RunGroup(streams)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
		for i, r := range rs {
			if err := logs[i].close(r); err != nil {
				return nil, err
			}
			if o.deviceLog != "" {
				if err := writeDeviceLog(outs, deviceLogName(o, jf, n-len(rs)+i+1), r); err != nil {
					return nil, err
				}
			}
		}
		if interrupted(nil, rs...) != nil {
			break // stopped: the later groups do not run, and are not reported
		}
	}
	return results, nil
}

// fileReports returns the fio job of each report, and what writes its
// text: a job each, or a reporting group's jobs merged into one.
func fileReports(o *options, ran []workload.FileJob, results []*sim.Result, out io.Writer) ([]fioreport.Job, []func()) {
	var fioJobs []fioreport.Job
	var texts []func()
	for i := 0; i < len(ran); {
		k := i + 1
		for k < len(ran) && ran[k].Report == ran[i].Report {
			k++
		}
		merge := false
		for _, j := range ran[i:k] {
			merge = merge || j.GroupReporting
		}
		parts := []int{i}
		if !merge {
			parts = parts[:0]
			for x := i; x < k; x++ {
				parts = append(parts, x)
			}
		}
		for _, x := range parts {
			r := results[x]
			if merge {
				r = sim.Merge(results[i:k])
				if sec := ran[i].Section; sec != "" {
					r.Name = sec // fio names a group by its first job
				}
			}
			fj := o.fio(r, ran[x].Options)
			fj.GroupID = ran[x].Report
			fj.Namespace = ran[x].Job.FileSet.Namespace
			fioJobs = append(fioJobs, fj)
			jo := *o
			jo.job = ran[x].Job
			texts = append(texts, func() { writeJobText(out, &jo, r) })
		}
		i = k
	}
	return fioJobs, texts
}
