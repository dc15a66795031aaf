package fit

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ftlsim/ftlsim/controller"
)

// evaluation is what one drive (one vector of parameter values) measured:
// every procedure's figures, or why it could not run.
type evaluation struct {
	Key     string                        `json:"key"`
	Figures map[string]map[string]float64 `json:"figures,omitempty"`
	Err     string                        `json:"error,omitempty"`
}

// evaluator runs drives, each vector of values once, the procedures of
// an evaluation, and evaluations of concurrent searches, in parallel on
// as many cores as it has slots: the runs are
// deterministic, so a vector met again (integer parameters round many
// points of the search to one drive; leave-one-out refits retrace the
// fit's first steps) is looked up. Each new evaluation is appended to
// the journal, from which a resumed fit takes what was done.
type evaluator struct {
	ctx     context.Context
	base    controller.Config
	params  []Param
	targets *Targets

	preps   *prepCache    // prepared drives (nil: each evaluation prepares its own)
	slots   chan struct{} // one per core: a procedure runs holding one
	mu      sync.Mutex
	done    map[string]*entry
	journal *os.File
	jw      *bufio.Writer
	runs    int // evaluations run (not looked up)
	looked  int // evaluations looked up
}

type entry struct {
	once sync.Once
	ev   evaluation
}

// counts returns the evaluations run and those looked up so far.
func (ev *evaluator) counts() (runs, looked int) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.runs, ev.looked
}

// key is the vector as the description holds its values.
func (ev *evaluator) key(x []float64) string {
	parts := make([]string, len(x))
	for i, p := range ev.params {
		parts[i] = p.Path + "=" + p.Text(x[i])
	}
	return strings.Join(parts, " ")
}

// drive is the base drive with the parameters set to x.
func (ev *evaluator) drive(x []float64) controller.Config {
	cfg := ev.base
	for i, p := range ev.params {
		p.set(&cfg, x[i])
	}
	return cfg
}

// eval returns the figures of the drive with values x, running it unless
// it was run before.
func (ev *evaluator) eval(x []float64) evaluation {
	k := ev.key(x)
	ev.mu.Lock()
	e, ok := ev.done[k]
	if !ok {
		e = &entry{}
		ev.done[k] = e
	}
	ev.mu.Unlock()
	ran := false
	e.once.Do(func() {
		ran = true
		e.ev = ev.run(k, x)
		ev.record(e.ev)
	})
	ev.mu.Lock()
	if ran {
		ev.runs++
	} else {
		ev.looked++
	}
	ev.mu.Unlock()
	return e.ev
}

func (ev *evaluator) run(k string, x []float64) evaluation {
	out := evaluation{Key: k, Figures: map[string]map[string]float64{}}
	if err := ev.ctx.Err(); err != nil {
		out.Err = err.Error()
		return out
	}
	cfg := ev.drive(x)
	keys := sortedKeys(ev.targets.Procedures)
	figs := make([]map[string]float64, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev.slots <- struct{}{} // a core
			defer func() { <-ev.slots }()
			figs[i], errs[i] = runProcedure(ev.ctx, ev.preps, ev.targets.Procedures[key], cfg)
		}()
	}
	wg.Wait()
	for i, key := range keys {
		if errs[i] != nil {
			out.Err = fmt.Sprintf("%s: %v", key, errs[i])
			return out
		}
		out.Figures[key] = figs[i]
	}
	return out
}

// record appends an evaluation to the journal (not one cut short by the
// context: that one is run again on resuming).
func (ev *evaluator) record(e evaluation) {
	if ev.jw == nil || (e.Err != "" && ev.ctx.Err() != nil) {
		return
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	b, _ := json.Marshal(e)
	ev.jw.Write(append(b, '\n'))
	ev.jw.Flush()
}

// journalHeader is the first line of a journal: what its evaluations are
// evaluations of.
type journalHeader struct {
	Journal string `json:"ftlsim_fit_journal"`
}

// fingerprint hashes what an evaluation depends on: the base drive, the
// parameters' paths, the procedures and whether evaluations fork a
// prepared drive.
func fingerprint(base controller.Config, params []Param, ts *Targets, forked bool) (string, error) {
	b, err := base.Marshal()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(b)
	if forked {
		h.Write([]byte("\x00evaluations fork the prepared drive")) // their figures differ from a fresh preparation's
	}
	for _, p := range params {
		fmt.Fprintf(h, "\x00param %s", p.Path)
	}
	for _, k := range sortedKeys(ts.Procedures) {
		fmt.Fprintf(h, "\x00procedure %s", k)
		if jf, ok := ts.Procedures[k].(*jobFile); ok {
			h.Write(jf.text)
			for _, v := range sortedKeys(jf.env) {
				fmt.Fprintf(h, "\x00%s=%s", v, jf.env[v])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// ErrJournalExists is returned when a journal is present and the fit was
// not asked to resume.
var ErrJournalExists = errors.New("a journal of an earlier fit is present")

// openJournal opens the journal file (creating it), loading what an
// earlier run of the same fit recorded when resume is set.
func (ev *evaluator) openJournal(file string, resume bool, fp string) error {
	if file == "" {
		return nil
	}
	if b, err := os.ReadFile(file); err == nil {
		if !resume {
			return fmt.Errorf("%s: %w; continue it with --resume, or remove it", file, ErrJournalExists)
		}
		lines := strings.Split(string(b), "\n")
		var h journalHeader
		if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Journal == "" {
			return fmt.Errorf("%s:1: not a fit journal", file)
		}
		if h.Journal != fp {
			return fmt.Errorf("%s:1: the journal is of another fit (another base drive, parameters or targets); remove it to start again", file)
		}
		for i, l := range lines[1:] {
			if strings.TrimSpace(l) == "" {
				continue
			}
			var e evaluation
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				if i == len(lines)-2 {
					break // the last line, cut short by the interruption
				}
				return fmt.Errorf("%s:%d: %v", file, i+2, err)
			}
			en := &entry{ev: e}
			en.once.Do(func() {})
			ev.done[e.Key] = en
		}
	} else if resume && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	ev.journal, ev.jw = f, bufio.NewWriter(f)
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		b, _ := json.Marshal(journalHeader{fp})
		ev.jw.Write(append(b, '\n'))
		ev.jw.Flush()
	}
	return nil
}

func (ev *evaluator) close() error {
	if ev.journal == nil {
		return nil
	}
	ev.jw.Flush()
	return ev.journal.Close()
}
