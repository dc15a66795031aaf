package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/ftlsim/ftlsim/controller"
)

// Options configures a fit.
type Options struct {
	// Base is the drive the fit starts from.
	Base controller.Config
	// Params are the parameters searched (DefaultParams when empty).
	Params []Param
	// Targets are the figures fitted.
	Targets *Targets
	// Seed seeds the search: the same inputs and seed give the same fit.
	Seed uint64
	// MaxEvaluations bounds each search (default 30 per parameter the
	// search moves, at least 60: the parameters that move no figure at
	// the start are not searched, and cost it nothing); LeaveOneOut's
	// refits take as many each.
	MaxEvaluations int
	// Jobs is how many drives run at once (default GOMAXPROCS).
	Jobs int
	// LeaveOneOut refits once without each target and predicts it.
	LeaveOneOut bool
	// Journal, when set, records every evaluation, so that a fit that was
	// interrupted continues with Resume.
	Journal string
	Resume  bool
	// PrepareEach prepares every evaluation's drive afresh instead of
	// forking one prepared drive per distinct preparation (see fork.go's
	// notes); the figures differ by what the preparation's own costs
	// left (the times it booked), the search is slower.
	PrepareEach bool
	// Progress, when set, is called after each evaluation; the
	// leave-one-out refits call it from several goroutines at once.
	Progress func(Progress)
}

// Progress is a fit's state after an evaluation.
type Progress struct {
	Stage       string  // "fit", "identifiability", "leave-one-out N/M"
	Evaluations int     // evaluations so far (run or looked up)
	Runs        int     // drives run (the others were looked up)
	Best        float64 // best objective of the stage so far (RMS relative error)
}

// Result is a fit's outcome.
type Result struct {
	Params  []Param
	Start   []float64 // the base drive's values
	Fitted  []float64 // the fitted values
	Targets []Target
	// Before and After are each target's figure on the base drive and on
	// the fitted one; Errors the fitted figure's relative errors.
	Before, After, Errors []float64
	// Objective is the fitted drive's RMS relative error over the
	// targets (weighted).
	Objective float64
	// Unidentifiable names the parameters the targets do not determine:
	// moving one by a tenth of its value (at least one step) changes no
	// target's figure by more than FlatShare.
	Unidentifiable []string
	// Sensitivity is, for each parameter, the largest relative change of
	// a target's figure when it moves by a tenth; Moves the change of
	// each target's figure (parameter × target).
	Sensitivity []float64
	Moves       [][]float64
	// LeaveOneOut is, for each target, the relative error of its figure
	// predicted by a refit without it (NaN when not computed).
	LeaveOneOut []float64
	// Evaluations and Runs count evaluations and the drives run;
	// Preparations the drives prepared, and Forked the procedure runs
	// that started from one of them.
	Evaluations, Runs    int
	Preparations, Forked int
}

// FlatShare is the change of a figure below which a parameter's effect
// is taken as none (0.3 %).
const FlatShare = 0.003

// Fit searches the parameters for the drive whose figures come closest
// to the targets on a relative scale: the objective is the weighted RMS
// of the targets' relative errors (Target.Error). The search is
// Nelder-Mead (gonum's optimize.NelderMead) over each parameter's bounds
// mapped to [0, 1] (on a log scale for positive bounds), from the base
// drive's values; the parameters that move no figure there are not
// searched. Work runs in parallel on Jobs cores: the procedures of an
// evaluation, the probes of the sensitivities, and the leave-one-out
// refits (one search per target left out, all at once). It then names
// the parameters the targets leave undetermined and, with LeaveOneOut,
// predicts each target from the refit without it.
func Fit(ctx context.Context, o Options) (*Result, error) {
	if o.Targets == nil || len(o.Targets.List) == 0 {
		return nil, fmt.Errorf("fit: no targets")
	}
	params := o.Params
	if len(params) == 0 {
		params = DefaultParams(o.Base)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("fit: the base drive sets none of the firmware's costs; name the parameters to fit")
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	fp, err := fingerprint(o.Base, params, o.Targets, !o.PrepareEach)
	if err != nil {
		return nil, err
	}
	ev := &evaluator{ctx: ctx, base: o.Base, params: params, targets: o.Targets, done: map[string]*entry{},
		slots: make(chan struct{}, o.Jobs)}
	if !o.PrepareEach {
		ev.preps = &prepCache{base: o.Base, limit: len(o.Targets.Procedures) + o.Jobs, m: map[string]*prepEntry{}}
	}
	if err := ev.openJournal(o.Journal, o.Resume, fp); err != nil {
		return nil, err
	}
	defer ev.close()
	st := &stage{ev: ev, o: &o}
	res := &Result{Params: params, Targets: o.Targets.List}
	for _, p := range params {
		res.Start = append(res.Start, p.Start)
	}
	start := ev.eval(res.Start)
	if start.Err != "" {
		return nil, fmt.Errorf("fit: the base drive: %s", start.Err)
	}
	if err := checkFigures(o.Targets, start.Figures); err != nil {
		return nil, err
	}
	weights := make([]float64, len(o.Targets.List))
	for i, t := range o.Targets.List {
		weights[i] = t.Weight
	}
	// Parameters that move no figure at the start are not searched: the
	// targets cannot determine them (identify names them at the end).
	sens, _, err := st.sensitivity(res.Start, start)
	if err != nil {
		return nil, err
	}
	st.free = make([]bool, len(params))
	for i := range params {
		st.free[i] = sens[i] > FlatShare
	}
	res.Fitted, err = st.search("fit", weights, res.Start)
	if err != nil {
		return nil, err
	}
	fitted := ev.eval(res.Fitted)
	for _, t := range o.Targets.List {
		b, a := start.Figures[t.Procedure][t.Figure], fitted.Figures[t.Procedure][t.Figure]
		res.Before, res.After = append(res.Before, b), append(res.After, a)
		res.Errors = append(res.Errors, t.Error(a))
	}
	res.Objective = objective(o.Targets.List, weights, fitted)
	if err := st.identify(res); err != nil {
		return nil, err
	}
	res.LeaveOneOut = make([]float64, len(o.Targets.List))
	for i := range res.LeaveOneOut {
		res.LeaveOneOut[i] = math.NaN()
	}
	if o.LeaveOneOut && len(o.Targets.List) > 1 {
		// The refits are independent: they run at once, their drives
		// sharing the cores (each search is sequential, so each is
		// deterministic whatever the order its evaluations end in).
		errs := make([]error, len(o.Targets.List))
		var wg sync.WaitGroup
		for i, t := range o.Targets.List {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := append([]float64(nil), weights...)
				w[i] = 0
				x, err := st.search(fmt.Sprintf("leave-one-out %d/%d", i+1, len(weights)), w, res.Start)
				if err != nil {
					errs[i] = err
					return
				}
				e := ev.eval(x)
				res.LeaveOneOut[i] = t.Error(e.Figures[t.Procedure][t.Figure])
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	runs, looked := ev.counts()
	res.Evaluations, res.Runs = runs+looked, runs
	res.Preparations, res.Forked = ev.preps.counts()
	return res, nil
}

// objective is the weighted RMS relative error of evaluation e.
func objective(ts []Target, w []float64, e evaluation) float64 {
	if e.Err != "" {
		return math.Inf(1)
	}
	var sum, sw float64
	for i, t := range ts {
		got, ok := e.Figures[t.Procedure][t.Figure]
		if !ok {
			return math.Inf(1)
		}
		r := t.Error(got)
		sum += w[i] * r * r
		sw += w[i]
	}
	if sw == 0 {
		return 0
	}
	return math.Sqrt(sum / sw)
}

// stage runs searches on the evaluator.
type stage struct {
	ev   *evaluator
	o    *Options
	free []bool // the parameters searched (nil: all)
}

// search minimises the objective with weights w from x0 and returns the
// best values found: the lowest objective, ties broken by the values'
// text, so that the answer does not depend on the order evaluations end.
// A search that ends above RestartAbove may have started on a plateau (a
// figure that does not move near the start, such as stalls that happen
// only once collection falls behind): it then evaluates a design spread
// over every parameter's bounds (design) and, if a point of it is better,
// searches again from there, every parameter free.
func (st *stage) search(name string, w []float64, x0 []float64) ([]float64, error) {
	ps, ts := st.ev.params, st.o.Targets.List
	var mu sync.Mutex
	best, bestKey, bestX, n := math.Inf(1), "", append([]float64(nil), x0...), 0
	consider := func(x []float64, f float64) {
		k := st.ev.key(x)
		mu.Lock()
		defer mu.Unlock()
		n++
		if f < best || (f == best && k < bestKey) {
			best, bestKey, bestX = f, k, append([]float64(nil), x...)
		}
		if st.o.Progress != nil {
			runs, looked := st.ev.counts()
			st.o.Progress(Progress{Stage: name, Evaluations: runs + looked, Runs: runs, Best: best})
		}
	}
	var free []int
	for i := range ps {
		if st.free == nil || st.free[i] {
			free = append(free, i)
		}
	}
	bestNow := func() float64 { mu.Lock(); defer mu.Unlock(); return best }
	// polish restarts Nelder-Mead from the best point with a fresh
	// simplex, half the last one's size each time, up to Restarts times,
	// while each restart lowers the objective by at least a tenth: the
	// method's simplex can collapse short of the minimum (McKinnon 1998),
	// and a restart from its best point is the usual remedy (Kelley 1999,
	// "Detection and remediation of stagnation in the Nelder-Mead
	// algorithm").
	polish := func(over []int) error {
		size := simplexSize
		for range Restarts {
			mu.Lock()
			f0, x := best, append([]float64(nil), bestX...)
			mu.Unlock()
			size /= 2
			if err := st.minimize(name, over, x, w, size, consider, bestNow); err != nil {
				return err
			}
			if bestNow() > 0.9*f0 {
				return nil
			}
		}
		return nil
	}
	consider(x0, objective(ts, w, st.ev.eval(x0)))
	if err := st.minimize(name, free, x0, w, simplexSize, consider, bestNow); err != nil {
		return nil, err
	}
	mu.Lock()
	stuck, from := best > RestartAbove, bestKey
	mu.Unlock()
	if !stuck {
		if err := polish(free); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		return bestX, nil
	}
	pts := st.design()
	evs := make([]float64, len(pts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, st.o.Jobs)
	for k := range pts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			evs[k] = objective(ts, w, st.ev.eval(pts[k]))
		}()
	}
	wg.Wait()
	if err := st.ev.ctx.Err(); err != nil {
		return nil, err
	}
	for k := range pts {
		consider(pts[k], evs[k]) // in the design's order: the same best whatever order they ended in
	}
	mu.Lock()
	moved, x1 := bestKey != from, append([]float64(nil), bestX...)
	mu.Unlock()
	if moved {
		all := make([]int, len(ps))
		for i := range all {
			all[i] = i
		}
		if err := st.minimize(name, all, x1, w, simplexSize, consider, bestNow); err != nil {
			return nil, err
		}
		if err := polish(all); err != nil {
			return nil, err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return bestX, nil
}

// metThreshold is the objective (RMS relative error) below which a
// search stops: the targets are met (0.05 %; a range met counts 0).
const metThreshold = 5e-4

// Restarts is how many times a search's Nelder-Mead restarts from its
// best point, with a simplex half the last one's size, while each
// restart lowers the objective by at least a tenth.
const Restarts = 3

// simplexSize is the first simplex's size, on the unit scale of each
// parameter's bounds: a fifth of each range.
const simplexSize = 0.2

// RestartAbove is the objective (RMS relative error) above which a
// search that has ended tries a design over the bounds (5 %).
const RestartAbove = 0.05

// design returns the points a stuck search evaluates: for up to four
// parameters every corner of the box a fifth inside the bounds (on the
// search's scale), for more a Latin hypercube of four points per
// parameter drawn from the fit's seed.
func (st *stage) design() [][]float64 {
	ps := st.ev.params
	k := len(ps)
	var units [][]float64
	if k <= 4 {
		for m := 0; m < 1<<k; m++ {
			u := make([]float64, k)
			for i := range u {
				u[i] = 0.2 + 0.6*float64(m>>i&1)
			}
			units = append(units, u)
		}
	} else {
		n := 4 * k
		rng := rand.New(rand.NewPCG(st.o.Seed, 0x6c68732d66697421))
		units = make([][]float64, n)
		for j := range units {
			units[j] = make([]float64, k)
		}
		for i := 0; i < k; i++ {
			perm := rng.Perm(n)
			for j := range units {
				units[j][i] = (float64(perm[j]) + rng.Float64()) / float64(n)
			}
		}
	}
	out := make([][]float64, len(units))
	for j, u := range units {
		x := make([]float64, k)
		for i, p := range ps {
			x[i] = p.fromUnit(u[i])
		}
		out[j] = x
	}
	return out
}

// minimize runs Nelder-Mead over the parameters free from x0, its first
// simplex size wide on the unit scale, reporting
// every evaluation to consider; best is the search's best so far.
func (st *stage) minimize(name string, free []int, x0, w []float64, size float64, consider func([]float64, float64), best func() float64) error {
	ps, ts := st.ev.params, st.o.Targets.List
	if len(free) == 0 || best() < metThreshold {
		return nil // nothing to search, or the targets are met already
	}
	values := func(u []float64) []float64 {
		x := append([]float64(nil), x0...)
		for k, i := range free {
			x[i] = ps[i].fromUnit(u[k])
		}
		return x
	}
	u0 := make([]float64, len(free))
	for k, i := range free {
		u0[k] = ps[i].toUnit(x0[i])
	}
	method := &optimize.NelderMead{SimplexSize: size}
	st.prefetchSimplex(u0, method.SimplexSize, values)
	prob := optimize.Problem{
		Func: func(u []float64) float64 {
			x := values(u)
			f := objective(ts, w, st.ev.eval(x))
			consider(x, f)
			if math.IsInf(f, 0) {
				return 1e6
			}
			// Outside [0, 1] the drive is the bound's: a penalty keeps the
			// search inside.
			pen := 0.0
			for _, v := range u {
				pen += math.Max(0, -v) + math.Max(0, v-1)
			}
			return f + pen
		},
		Status: func() (optimize.Status, error) {
			if err := st.ev.ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			if best() < metThreshold {
				return optimize.FunctionThreshold, nil
			}
			return optimize.NotTerminated, nil
		},
	}
	// Nelder-Mead from a simplex size wide on each range; it stops
	// when the best error is below 0.05 % (Status), when it has not fallen
	// by 1e-4 in 10 iterations per parameter, or after MaxEvaluations (by
	// default 30 per parameter it moves, at least 60).
	budget := st.o.MaxEvaluations
	if budget <= 0 {
		budget = max(60, 30*len(free))
	}
	settings := &optimize.Settings{FuncEvaluations: budget,
		Converger: &optimize.FunctionConverge{Absolute: 1e-4, Iterations: 10 * len(free)}}
	_, err := optimize.Minimize(prob, u0, settings, method)
	if cerr := st.ev.ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil && math.IsInf(best(), 1) {
		return fmt.Errorf("fit: %s: %w", name, err)
	}
	return nil
}

// prefetchSimplex runs, in parallel, the drives of the initial simplex
// Nelder-Mead builds around u0 (u0 and one vertex size away along each
// parameter), which it would otherwise evaluate one after another: its
// evaluations of them are then look-ups, and the search the same. (When
// a vertex meets the targets, Nelder-Mead would not have run the ones
// after it: those drives are the price of the parallel start.)
func (st *stage) prefetchSimplex(u0 []float64, size float64, values func([]float64) []float64) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, st.o.Jobs)
	for k := range u0 {
		u := append([]float64(nil), u0...)
		u[k] += size
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			st.ev.eval(values(u))
		}()
	}
	wg.Wait()
}

// identify measures the parameters' effect at the fitted drive and
// names those the targets leave undetermined: moving one by a tenth (at
// least one step of an integer) down and up changes no target's figure by
// more than FlatShare.
func (st *stage) identify(res *Result) error {
	sens, moves, err := st.sensitivity(res.Fitted, st.ev.eval(res.Fitted))
	if err != nil {
		return err
	}
	res.Sensitivity, res.Moves = sens, moves
	for i, p := range st.ev.params {
		if sens[i] <= FlatShare {
			res.Unidentifiable = append(res.Unidentifiable, p.Path)
		}
	}
	sort.Strings(res.Unidentifiable)
	return nil
}

// sensitivity returns, for each parameter, the largest relative change
// of a target's figure when the parameter moves from x by a tenth (at
// least one step of an integer) down or up, within its bounds; at is x's
// evaluation. The probes run in parallel.
func (st *stage) sensitivity(x0 []float64, at evaluation) ([]float64, [][]float64, error) {
	ps, ts := st.ev.params, st.o.Targets.List
	type probe struct {
		i int
		x []float64
	}
	var probes []probe
	for i, p := range ps {
		for _, dir := range []float64{-1, 1} {
			x := append([]float64(nil), x0...)
			step := math.Abs(x[i]) * 0.1
			if p.Integer {
				step = math.Max(step, 1)
			}
			x[i] = math.Min(math.Max(x[i]+dir*step, p.Lo), p.Hi)
			if p.round(x[i]) != p.round(x0[i]) {
				probes = append(probes, probe{i, x})
			}
		}
	}
	evs := make([]evaluation, len(probes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, st.o.Jobs)
	for k := range probes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			evs[k] = st.ev.eval(probes[k].x)
		}()
	}
	wg.Wait()
	if err := st.ev.ctx.Err(); err != nil {
		return nil, nil, err
	}
	sens := make([]float64, len(ps))
	moves := make([][]float64, len(ps))
	for i := range moves {
		moves[i] = make([]float64, len(ts))
	}
	for k, pr := range probes {
		for j, t := range ts {
			got, ok := evs[k].Figures[t.Procedure][t.Figure]
			if !ok || evs[k].Err != "" {
				sens[pr.i], moves[pr.i][j] = math.Inf(1), math.Inf(1) // it breaks the drive: it matters
				continue
			}
			base := at.Figures[t.Procedure][t.Figure]
			d := math.Abs(got-base) / math.Max(math.Abs(base), math.Abs(t.Value))
			if math.IsNaN(d) {
				d = 0
			}
			sens[pr.i] = math.Max(sens[pr.i], d)
			moves[pr.i][j] = math.Max(moves[pr.i][j], d)
		}
	}
	return sens, moves, nil
}
