package fit

import (
	"context"
	"crypto/sha256"
	"reflect"
	"sync"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/fields"
	"github.com/ftlsim/ftlsim/sim"
)

// A procedure's preparation — the secure erase and the fill before its
// first measured step — is most of what some procedures cost, and it does
// not depend on the firmware's costs: a fill writes the same data to the
// same pages however long each command takes, and no value that acts only
// once a collection has begun decides anything before one has. So a fit
// prepares each procedure once per distinct preparation and forks the
// prepared drive for every evaluation (sim.Engine.Save, Restore): the
// drive restored runs at its own costs from there (controller.StateClass
// says which fields a state may be loaded with other values of).
//
// The preparation is run with the base drive's values of those fields,
// whichever evaluation needs it first, so that every evaluation measures
// the same drive whatever order they run in: the fit stays deterministic.
// When that preparation collected (the fill ran garbage collection), the
// collection values shaped it and the costs may have (collection
// interleaves with the host's writes by their times): then only the
// drive it was prepared on starts from it, and every other evaluation
// prepares its own.

// stagedProcedure is a procedure whose leading steps prepare the drive.
type stagedProcedure interface {
	Procedure
	// plan splits the procedure's run on drive c: prep (nil when it has
	// no preparation worth keeping: no step writes) and measure, which
	// returns the figures.
	plan(c *controller.Controller) (prep, measure func(context.Context, *sim.Engine) error, figs func() map[string]float64, err error)
}

// prepCache holds prepared drives, the most recently used first.
type prepCache struct {
	base  controller.Config
	limit int // prepared drives held at most

	mu      sync.Mutex
	m       map[string]*prepEntry
	order   []string
	made    int // preparations run
	restore int // evaluations restored from one
}

type prepEntry struct {
	once      sync.Once
	st        *sim.State
	collected bool // the preparation collected (a late one: or trimmed)
	figs      map[string]float64
	err       error
}

// retunable are the drive-description fields a state may be loaded with
// another value of, and their classes.
var retunable = func() (out []struct {
	f    fields.Field
	coll bool
}) {
	for _, f := range table.Fields() {
		cf, ok := controller.LookupField(f.Path)
		if !ok {
			continue
		}
		switch cf.StateClass() {
		case controller.StateTiming:
			out = append(out, struct {
				f    fields.Field
				coll bool
			}{f, false})
		case controller.StateCollection:
			out = append(out, struct {
				f    fields.Field
				coll bool
			}{f, true})
		case controller.StateTrim:
			trimFields = append(trimFields, f)
		}
	}
	return out
}()

// trimFields are the fields that act only once the drive is sent a TRIM
// (controller.StateTrim): a state taken before its first TRIM serves a
// drive with other values of them (prepCache.late).
var trimFields []fields.Field

// canonical is cfg with the base's costs and rates, and, with coll, the
// base's collection values: the drive a preparation is run on.
func (pc *prepCache) canonical(cfg controller.Config, coll bool) controller.Config {
	dst, src := reflect.ValueOf(&cfg).Elem(), reflect.ValueOf(&pc.base).Elem()
	for _, r := range retunable {
		if !r.coll || coll {
			r.f.Value(dst).Set(r.f.Value(src))
		}
	}
	return cfg
}

// beforeTrim is cfg with the base's values of the fields that act only
// once a TRIM arrives: the drive the steps before its first TRIM are run
// on.
func (pc *prepCache) beforeTrim(cfg controller.Config) controller.Config {
	dst, src := reflect.ValueOf(&cfg).Elem(), reflect.ValueOf(&pc.base).Elem()
	for _, f := range trimFields {
		f.Value(dst).Set(f.Value(src))
	}
	return cfg
}

func descriptionKey(cfg controller.Config) (string, error) {
	b, err := cfg.Marshal()
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return string(s[:]), nil
}

// state returns the prepared drive procedure p starts drive cfg from,
// or nil when cfg must prepare its own: the preparation collected, so
// the values that act only once collection has begun shaped it, and the
// costs may have too (collection interleaves with the host's writes by
// their times).
func (pc *prepCache) state(ctx context.Context, p stagedProcedure, cfg controller.Config) (*sim.State, error) {
	c1 := pc.canonical(cfg, true)
	k1, err := descriptionKey(c1)
	if err != nil {
		return nil, err
	}
	e := pc.entry(ctx, p.Key()+"\x00"+k1, p, c1)
	if e.err != nil {
		return nil, e.err
	}
	if e.collected {
		k, err := descriptionKey(cfg)
		if err != nil || k != k1 {
			return nil, err
		}
	}
	pc.mu.Lock()
	pc.restore++
	pc.mu.Unlock()
	return e.st, nil
}

// entry returns the prepared drive of key k, preparing it (drive cfg,
// procedure p) if no evaluation has; the least recently used beyond the
// limit are dropped.
func (pc *prepCache) entry(ctx context.Context, k string, p stagedProcedure, cfg controller.Config) *prepEntry {
	return pc.entryWith(k, prepared(ctx, cfg, func(c *controller.Controller, eng *sim.Engine) error {
		prep, _, _, err := p.plan(c)
		if err != nil {
			return err
		}
		return prep(ctx, eng)
	}, func(e *prepEntry, c *controller.Controller) {
		e.collected = c.FTL().Collected()
	}))
}

// prepared returns how an entry is made: a drive of description cfg, run
// by run and saved, with what keep takes from it — unless the run fails
// or ctx is done first.
func prepared(ctx context.Context, cfg controller.Config, run func(*controller.Controller, *sim.Engine) error, keep func(*prepEntry, *controller.Controller)) func(*prepEntry) {
	return func(e *prepEntry) {
		c, err := controller.New(cfg)
		if err != nil {
			e.err = err
			return
		}
		eng := sim.New(c)
		defer stopOn(ctx, eng)()
		if err := run(c, eng); err != nil {
			e.err = err
			return
		}
		if err := ctx.Err(); err != nil {
			e.err = err
			return
		}
		e.st, e.err = eng.Save()
		keep(e, c)
	}
}

// entryWith returns the entry of key k, made by prepare if no evaluation
// has made it; the least recently used beyond the limit are dropped.
func (pc *prepCache) entryWith(k string, prepare func(*prepEntry)) *prepEntry {
	pc.mu.Lock()
	e, ok := pc.m[k]
	if !ok {
		e = &prepEntry{}
		pc.m[k] = e
	}
	for i, o := range pc.order {
		if o == k {
			pc.order = append(pc.order[:i], pc.order[i+1:]...)
			break
		}
	}
	pc.order = append([]string{k}, pc.order...)
	for len(pc.order) > pc.limit {
		delete(pc.m, pc.order[len(pc.order)-1])
		pc.order = pc.order[:len(pc.order)-1]
	}
	pc.mu.Unlock()
	e.once.Do(func() {
		prepare(e)
		if e.err == nil {
			pc.mu.Lock()
			pc.made++
			pc.mu.Unlock()
		}
	})
	return e
}

// A scenario that measures, then sends a TRIM (the TRIM validation:
// measured clean, tortured, measured dirty, trimmed, measured again) has
// its longest work before the TRIM, and the values that act only on a
// TRIM (trim_backlog) have decided nothing there. So the drive is run to
// its first TRIM once per description without those values — on the
// base's values of them, so that the fit does not depend on the order
// evaluations end in — its state and the figures measured so far kept,
// and every evaluation that differs only in them forks it there. The
// figures are those of the whole run: nothing before the TRIM read the
// values. A run that was sent a TRIM before (a job's own) serves only
// its own drive.

// late runs scenario p on drive cfg from the state before its first
// TRIM, running that state first if no evaluation has; ok is false when
// p has no such split, or the state serves only its own drive and cfg
// is another.
func (pc *prepCache) late(ctx context.Context, p *scenario, cfg controller.Config) (figs map[string]float64, ok bool, err error) {
	r, err := p.stages()
	if err != nil || r.head == nil {
		return nil, false, err
	}
	head := pc.beforeTrim(cfg)
	k, err := descriptionKey(head)
	if err != nil {
		return nil, false, err
	}
	var hr *scenarioRun
	e := pc.entryWith("before the first TRIM\x00"+p.Key()+"\x00"+k, prepared(ctx, head, func(_ *controller.Controller, eng *sim.Engine) error {
		var err error
		if hr, err = p.stages(); err != nil {
			return err
		}
		if hr.prep != nil {
			st, err := pc.state(ctx, p, head)
			if err == nil && st != nil {
				err = eng.Restore(st)
			} else if err == nil {
				err = hr.prep(ctx, eng)
			}
			if err != nil {
				return err
			}
		}
		return hr.head(ctx, eng)
	}, func(e *prepEntry, c *controller.Controller) {
		e.figs, e.collected = hr.out, c.Trimmed()
	}))
	if e.err != nil {
		return nil, false, e.err
	}
	if e.collected {
		if k2, err := descriptionKey(cfg); err != nil || k2 != k {
			return nil, false, err
		}
	}
	c, err := controller.New(cfg)
	if err != nil {
		return nil, false, err
	}
	eng := sim.New(c)
	defer stopOn(ctx, eng)()
	if err := eng.Restore(e.st); err != nil {
		return nil, false, err
	}
	pc.mu.Lock()
	pc.restore++
	pc.mu.Unlock()
	for f, v := range e.figs {
		r.out[f] = v
	}
	if err := r.tail(ctx, eng); err != nil {
		return nil, false, err
	}
	return r.out, true, nil
}

// counts returns the preparations run and the evaluations restored.
func (pc *prepCache) counts() (made, restored int) {
	if pc == nil {
		return 0, 0
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.made, pc.restore
}

// runProcedure runs procedure p on drive cfg, from its prepared drive
// when p has a preparation and pc is set.
func runProcedure(ctx context.Context, pc *prepCache, p Procedure, cfg controller.Config) (map[string]float64, error) {
	sp, ok := p.(stagedProcedure)
	if !ok || pc == nil {
		return p.Run(ctx, cfg)
	}
	if sc, ok := p.(*scenario); ok {
		figs, ok, err := pc.late(ctx, sc, cfg)
		if ok || err != nil {
			return figs, err
		}
	}
	c, err := controller.New(cfg)
	if err != nil {
		return nil, err
	}
	prep, measure, figs, err := sp.plan(c)
	if err != nil {
		return nil, err
	}
	e := sim.New(c)
	defer stopOn(ctx, e)()
	if prep == nil {
		if err := measure(ctx, e); err != nil {
			return nil, err
		}
		return figs(), nil
	}
	st, err := pc.state(ctx, sp, cfg)
	if err != nil {
		return nil, err
	}
	if st == nil {
		err = prep(ctx, e)
	} else {
		err = e.Restore(st)
	}
	if err != nil {
		return nil, err
	}
	if err := measure(ctx, e); err != nil {
		return nil, err
	}
	return figs(), nil
}
