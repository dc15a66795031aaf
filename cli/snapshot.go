package cli

// Drive snapshots: --save_state, --load_state and --prepare_only.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/internal/snapshot"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// stateCompression is how snapshot files are written: raw. A drive's
// state is mostly its mapping table and the flash's out-of-band tags,
// which compress poorly: on a tortured bp4-240, flate at its best speed
// took the file from 493 to 387 MiB but saving from 0.9 to 3.8 s and
// loading from 0.15 to 5.5 s. The format still reads flate (Open).
const stateCompression = snapshot.None

// checkStateOptions checks the snapshot options together.
func checkStateOptions(o *options) error {
	switch {
	case o.prepareOnly && o.saveState == "":
		return usage("--prepare_only: needs --save_state=FILE (it prepares the drive, saves its state there and runs no job)")
	case o.saveState != "" && o.loadState != "":
		return usage("--save_state=%s and --load_state=%s: give one (a loaded state is already saved)", o.saveState, o.loadState)
	}
	return nil
}

// preconditionText is p as --precondition reads it, the same in every
// snapshot that ran it.
func preconditionText(p workload.Precondition) string {
	if p.Kind == workload.PreconditionTorture {
		if p.TortureNs%1e9 == 0 {
			return "torture:" + strconv.FormatInt(p.TortureNs/1e9, 10) + "s"
		}
		return "torture:" + strconv.FormatInt(p.TortureNs, 10) + "ns"
	}
	return p.Kind.String()
}

// driveDescription is what describes drive c as built from o — its
// resolved description (seed left out), whether it keeps data (verify,
// power loss) and the wear --faults gave it when built — and its SHA-256
// (hex), the key a snapshot of it carries. The drive's seed is not part
// of it: the state a snapshot holds carries the drive's random state,
// and a run from it may give its workload another --randseed.
func driveDescription(c *controller.Controller, o *options) (text, key string, err error) {
	cfg := c.Config()
	cfg.Seed = 0
	b, err := cfg.Marshal()
	if err != nil {
		return "", "", err
	}
	text = string(b) + fmt.Sprintf("track_data: %t\nprewear: %g\n", cfg.NAND.TrackData, o.faults.wear)
	sum := sha256.Sum256([]byte(text))
	return text, hex.EncodeToString(sum[:]), nil
}

// describeDiff names the first lines of drive descriptions saved and now
// that differ.
func describeDiff(saved, now string) string {
	a, ka := yamlFields(saved)
	b, kb := yamlFields(now)
	var d []string
	for _, k := range ka {
		switch v, ok := b[k]; {
		case !ok:
			d = append(d, fmt.Sprintf("%s: %s, here not set", k, a[k]))
		case v != a[k]:
			d = append(d, fmt.Sprintf("%s: %s, here %s", k, a[k], v))
		}
	}
	for _, k := range kb {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("%s: not set, here %s", k, b[k]))
		}
	}
	if len(d) == 0 {
		return fmt.Sprintf("%d lines, here %d", strings.Count(saved, "\n"), strings.Count(now, "\n"))
	}
	return strings.Join(d[:min(len(d), 3)], "; ")
}

// yamlFields reads a description's lines as field paths (nand.geometry.
// channels, by indentation; a list's items numbered) and their values, in
// order: so that a difference is named by its field, not its line.
func yamlFields(text string) (map[string]string, []string) {
	type level struct {
		indent int
		key    string
	}
	var stack []level
	vals, seen := map[string]string{}, map[string]int{}
	var order []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		key, val, _ := strings.Cut(strings.TrimPrefix(t, "- "), ":")
		if strings.HasPrefix(t, "- ") || !strings.Contains(t, ":") {
			key, val = "-", t
		}
		path := make([]string, 0, len(stack)+1)
		for _, l := range stack {
			path = append(path, l.key)
		}
		p := strings.Join(append(path, strings.TrimSpace(key)), ".")
		if n := seen[p]; n > 0 || key == "-" {
			p = fmt.Sprintf("%s[%d]", p, n)
		}
		seen[strings.Join(append(path, strings.TrimSpace(key)), ".")]++
		vals[p] = strings.TrimSpace(val)
		order = append(order, p)
		stack = append(stack, level{indent, strings.TrimSpace(key)})
	}
	return vals, order
}

// preparation describes what preparing the drive ran, in the command's
// words, and its key.
func preparation(o *options) (text, key string) {
	p := o.precondition
	text = "--precondition=" + preconditionText(p)
	if p.Offset != "" {
		text += " --offset=" + p.Offset
	}
	if p.Size != "" {
		text += " --size=" + p.Size
	}
	sum := sha256.Sum256([]byte(text))
	return text, hex.EncodeToString(sum[:])
}

// prepared is what a drive's preparation did: the simulated time it took,
// and whether a signal stopped it before it finished.
type prepared struct {
	ns      int64
	stopped bool
}

// prepareDrive brings the drive of engine e to the state the job starts
// from and says what that took: a secure erase and the precondition,
// whose result --save_state saves; or the state --load_state holds, with
// the preparation time it records.
func prepareDrive(e *sim.Engine, o *options, stderr io.Writer) (prepared, error) {
	if o.loadState != "" {
		ns, err := loadState(e, o, stderr)
		return prepared{ns: ns}, err
	}
	if o.saveState != "" {
		// The file can be written: known before the preparation runs.
		if err := check("save_state="+o.saveState, o.saveState); err != nil {
			return prepared{}, err
		}
	}
	preNs, err := prepare(e, o.precondition)
	p := prepared{ns: preNs, stopped: e.Stopped()}
	if err != nil || o.saveState == "" {
		return p, err
	}
	if p.stopped {
		return prepared{}, fmt.Errorf("%w: the preparation was stopped; --save_state=%s was not written", errInterrupted, o.saveState)
	}
	return p, saveState(e, o, preNs, stderr)
}

// saveState writes the state of engine e's prepared drive to
// --save_state's file, whole or not at all, and notes its size.
func saveState(e *sim.Engine, o *options, preNs int64, stderr io.Writer) error {
	wall := time.Now()
	desc, dk, err := driveDescription(e.Controller(), o)
	if err != nil {
		return err
	}
	text, pk := preparation(o)
	h := snapshot.Header{Program: Version(), Drive: o.drive, Description: desc, DriveKey: dk, Preparation: text, PreparationKey: pk,
		Precondition: preconditionText(o.precondition), PrepNs: preNs, Compression: stateCompression}
	f, err := atomicfile.Create(o.saveState)
	if err != nil {
		return usage("--save_state=%s: %w", o.saveState, err)
	}
	n, err := snapshot.Write(f, h, e.SaveState)
	if err != nil {
		f.Abort()
		return fmt.Errorf("--save_state=%s: %w", o.saveState, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--save_state=%s: %w", o.saveState, err)
	}
	flash := sim.GeometryOf(e.Controller()).PhysicalBytes
	fmt.Fprintf(stderr, "ftlsim: note: saved the prepared drive to %s: %s (%s per GiB of flash) in %.1f s\n",
		o.saveState, units.FormatBytes(n), units.FormatBytes(int64(float64(n)/(float64(flash)/(1<<30)))), time.Since(wall).Seconds())
	return nil
}

// loadState restores the state --load_state's file holds into engine e,
// whose drive was built from the options, once the file is whole and was
// made from the same drive and preparation. The precondition is the
// file's (--precondition, if given, must be the same), so the results
// name it as the run that made the file did. It returns the preparation
// time the file records. A file another build of ftlsim wrote, with the
// same state types, is loaded with a note: its runs give that build's
// results only if the simulation is unchanged.
func loadState(e *sim.Engine, o *options, stderr io.Writer) (int64, error) {
	file := o.loadState
	bad := func(format string, a ...any) error {
		return usage("--load_state=%s: %s", file, fmt.Sprintf(format, a...))
	}
	fd, err := os.Open(file)
	if err != nil {
		return 0, usage("--load_state=%s: %w", file, errors.Unwrap(err))
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return 0, err
	}
	if st.IsDir() {
		return 0, bad("is a folder; allowed a file --save_state wrote")
	}
	sf, err := snapshot.Open(fd, st.Size())
	if err != nil {
		return 0, bad("%v", err)
	}
	h := sf.Header
	p, err := workload.ParsePrecondition(h.Precondition)
	if err != nil {
		return 0, bad("precondition %q: %v", h.Precondition, err)
	}
	if o.preconditionGiven && (o.precondition.Kind != p.Kind || o.precondition.TortureNs != p.TortureNs) {
		return 0, bad("prepared with --precondition=%s, this run asks --precondition=%s; leave --precondition out (the file's preparation is used) or give the file's",
			preconditionText(p), preconditionText(o.precondition))
	}
	o.precondition.Kind, o.precondition.TortureNs = p.Kind, p.TortureNs
	desc, dk, err := driveDescription(e.Controller(), o)
	if err != nil {
		return 0, err
	}
	retuned := ""
	if dk != h.DriveKey {
		var ok bool
		if retuned, ok = costsDiffer(h.Description, desc); !ok {
			return 0, bad("the drive description differs from the file's --drive=%s: %s (give the --drive, --capacity, --op, --gc, --faults, and verify or power_loss, of the run that saved it, or save the state again; only the firmware's and controller's costs and rates may differ)",
				h.Drive, describeDiff(h.Description, desc))
		}
	}
	if text, pk := preparation(o); pk != h.PreparationKey {
		return 0, bad("the preparation differs: the file was prepared with %s, this run asks %s (give the same --offset and --size, or save the state again)", h.Preparation, text)
	}
	r, n := sf.State()
	defer r.Close()
	if err := e.LoadState(r, n); err != nil {
		if errors.Is(err, snapshot.ErrLayout) {
			return 0, bad("%v (it was written by %s; this is %s): save the state again with this build", err, h.Program, Version())
		}
		return 0, bad("%v", err)
	}
	if h.Program != Version() {
		fmt.Fprintf(stderr, "ftlsim: note: --load_state=%s was written by %s; this is %s\n", file, h.Program, Version())
	}
	if retuned != "" {
		fmt.Fprintf(stderr, "ftlsim: note: --load_state=%s was prepared with other costs (%s): the drive runs at this run's from the load on\n", file, retuned)
	}
	return h.PrepNs, nil
}

// costsDiffer compares the drive descriptions saved and now (as
// driveDescription writes them) and returns the fields that differ, when
// every one is a value a state may be loaded with another value of
// (controller.StateClass; sim.Engine.LoadState makes the final check).
func costsDiffer(saved, now string) (string, bool) {
	a, ka := yamlFields(saved)
	b, kb := yamlFields(now)
	var d []string
	seen := map[string]bool{}
	for _, k := range append(ka, kb...) {
		if seen[k] || a[k] == b[k] {
			continue
		}
		seen[k] = true
		f, ok := controller.LookupField(k)
		if !ok || f.StateClass() == controller.StateFixed {
			return "", false
		}
		d = append(d, fmt.Sprintf("%s %s, here %s", k, orUnset(a[k]), orUnset(b[k])))
	}
	return strings.Join(d, "; "), len(d) > 0
}

func orUnset(v string) string {
	if v == "" {
		return "not set"
	}
	return v
}

// prepareOnly prepares the drive of c and saves its state, running no job
// (--prepare_only); the text output describes the drive and its
// preparation.
func prepareOnly(o *options, c *controller.Controller, stdout, stderr io.Writer, set settings) error {
	e := sim.New(c)
	defer stopOn(set.ctx, e)()
	prep, err := prepareDrive(e, o, stderr)
	if err != nil {
		return err
	}
	if o.format == "normal" {
		writeDriveText(stdout, o, c, prep)
		fmt.Fprintf(stdout, "state saved to %s; run jobs from it with --load_state=%s\n", o.saveState, o.saveState)
	}
	return nil
}
