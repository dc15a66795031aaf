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
	collected bool
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
		}
	}
	return out
}()

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
		c, err := controller.New(cfg)
		if err != nil {
			e.err = err
			return
		}
		prep, _, _, err := p.plan(c)
		if err != nil {
			e.err = err
			return
		}
		eng := sim.New(c)
		defer stopOn(ctx, eng)()
		if err := prep(ctx, eng); err != nil {
			e.err = err
			return
		}
		if err := ctx.Err(); err != nil {
			e.err = err
			return
		}
		e.st, e.err = eng.Save()
		e.collected = c.FTL().Collected()
		pc.mu.Lock()
		pc.made++
		pc.mu.Unlock()
	})
	return e
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
