package sim

import (
	"fmt"

	"github.com/ftlsim/ftlsim/workload"
)

// Measurement is a labelled step's result in a scenario run.
type Measurement struct {
	Label  string
	Result *Result
}

// RunSteps runs a scenario's steps in order and returns the results of
// the labelled ones.
func (e *Engine) RunSteps(steps []workload.Step) ([]Measurement, error) {
	return e.RunStepsHooks(steps, Hooks{})
}

// RunStepsHooks is RunSteps with hooks observing every job it runs.
func (e *Engine) RunStepsHooks(steps []workload.Step, hooks Hooks) ([]Measurement, error) {
	var out []Measurement
	for i, s := range steps {
		if e.Stopped() {
			break // Stop: the step under way was the last
		}
		switch s.Kind {
		case workload.SecureErase:
			e.SecureErase()
		case workload.Idle:
			if err := e.Idle(s.IdleNs); err != nil {
				return nil, err
			}
		case workload.Bake:
			if err := e.ctrl.Bake(s.BakeNs); err != nil {
				return nil, fmt.Errorf("step %d (bake): %w", i+1, err)
			}
		case workload.RunJob:
			r, err := e.runStep(s, hooks)
			if err != nil {
				return nil, fmt.Errorf("step %d (%s): %w", i+1, s.Job.Name, err)
			}
			if s.Label != "" {
				r.Name = s.Label
				out = append(out, Measurement{Label: s.Label, Result: r})
			}
		default:
			return nil, fmt.Errorf("sim: step %d has unknown kind %d", i+1, s.Kind)
		}
	}
	return out, nil
}

// runStep runs a RunJob step: its job, or its jobs at once, reported as
// one (Merge).
func (e *Engine) runStep(s workload.Step, hooks Hooks) (*Result, error) {
	if len(s.With) == 0 {
		return e.RunJob(s.Job, hooks)
	}
	if e.ctrl == nil {
		return nil, ErrNoDrive
	}
	jobs := s.Jobs()
	streams := make([]Stream, len(jobs))
	for i, j := range jobs {
		if err := e.resolve(j); err != nil {
			return nil, err
		}
		o := JobOptions(j)
		o.Hooks = hooks
		streams[i] = Stream{Source: workload.NewGenerator(j), Options: o}
	}
	rs, err := e.RunGroup(streams)
	if err != nil {
		return nil, err
	}
	return Merge(rs), nil
}
