package fit_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/fit"
)

// quick reads examples/fit/quick.yaml: its drive and its targets, and the
// BP4's write command cost as the one parameter.
func quick(t *testing.T) (controller.Config, *fit.Targets, []fit.Param) {
	t.Helper()
	ts, err := fit.LoadFigures("../examples/fit/quick.yaml")
	require.NoError(t, err)
	cfg, err := controller.Preset(ts.Drive)
	require.NoError(t, err)
	base, err := ts.Start(cfg)
	require.NoError(t, err)
	p, err := fit.ParseParam(base, "firmware.write_command_ns")
	require.NoError(t, err)
	return base, ts, []fit.Param{p}
}

// TestResumeIsDeterministic interrupts a fit, resumes it from its
// journal, and checks that the result is the uninterrupted fit's, bit
// for bit.
func TestResumeIsDeterministic(t *testing.T) {
	base, ts, ps := quick(t)
	o := fit.Options{Base: base, Params: ps, Targets: ts, Seed: 1, MaxEvaluations: 6, Jobs: 2}
	want, err := fit.Fit(context.Background(), o)
	require.NoError(t, err)

	o.Journal = filepath.Join(t.TempDir(), "journal.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := o
	stopped.Progress = func(p fit.Progress) {
		if p.Runs >= 3 {
			cancel()
		}
	}
	_, err = fit.Fit(ctx, stopped)
	require.True(t, errors.Is(err, context.Canceled), "%v", err)

	_, err = fit.Fit(context.Background(), o)
	require.ErrorIs(t, err, fit.ErrJournalExists)
	o.Resume = true
	got, err := fit.Fit(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, want.Fitted, got.Fitted)
	require.Equal(t, want.After, got.After)
	require.Equal(t, want.Unidentifiable, got.Unidentifiable)
	require.Less(t, got.Runs, want.Runs, "the resumed fit ran again what the journal held")
}
