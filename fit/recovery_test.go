package fit_test

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/cli"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/fit"
	"github.com/ftlsim/ftlsim/internal/testtier"
)

// kit is the measurement kit's folder.
const kit = "../examples/measure"

// smallBP4 is bp4-240 shrunk to 8 GiB with its spare area: the same
// firmware on fewer blocks, so that the kit runs in seconds.
func smallBP4(t *testing.T) controller.Config {
	t.Helper()
	cfg, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	return r.Config.Resized(8<<30, r.SparePercent)
}

// smallKit are the kit's variables (env.sh's) for a drive of a few GiB:
// a 256 MiB random span, one-second four-corners jobs, a 30 s
// consistency run, the whole drive filled.
func smallKit() map[string]string {
	return map[string]string{"SPAN": "256m", "RAND_TIME": "1", "SEQ_TIME": "1", "CONSIST_TIME": "30", "SIZE": "100%"}
}

// measure runs the kit's job files on drive (a description file) with
// `ftlsim run`, as the kit's README does, writing fio's JSON and logs
// into dir beside copies of the job files; env sets the kit's variables
// (as env.sh does).
func measure(t *testing.T, drive, dir string, env map[string]string, files ...string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(kit, f+".fio"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f+".fio"), b, 0o644))
	}
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	for _, f := range files {
		// The kit's files unchanged: consistency.fio asks for its own
		// IOPS log, as fio reads it.
		args := []string{"run", f + ".fio", "--drive=" + drive, "--output-format=json", "--output=" + f + ".json"}
		require.Equal(t, 0, cli.Main(args, io.Discard, io.Discard), "ftlsim %v", args)
	}
}

// TestRecovery is the fit's first proof: the kit's measurements of a
// hidden variant of bp4-240 — its fitted GC values and two command costs
// changed by 20-60 % — are fitted from the unchanged preset. Every
// target must come within 2 %, every identifiable parameter within 10 %
// of its hidden value, and the parameters the kit cannot see named; the
// three changes the kit's jobs measure (the read and write command costs,
// at queue depth 1 and in the random jobs, and the GC streams, in the
// consistency run's steady state) must be among the identified.
//
// The drive is bp4-240 at 8 GiB; four corners runs with SIZE=1g, which
// its sequential jobs (one second: about 540 MB) and its 256 MiB random
// span stay within, so that its fill — the one preparation a fit cannot
// fork, as it follows timed writes — writes 1 GiB, not the whole drive;
// the consistency run fills the whole drive (forked) and runs 30 s. The
// fit runs 148 drives, 70-80 s of CPU measured on a 2-core machine busy
// with other work: the long tier runs it.
func TestRecovery(t *testing.T) {
	testtier.Long(t)
	base := smallBP4(t)
	hidden := base
	hidden.Firmware.GCStreams = 6         // 4, +50 %
	hidden.Firmware.GCPacePercent = 210   // 150, +40 %
	hidden.Firmware.ReadCommandNs = 26000 // 19,500, +33 %
	hidden.Firmware.WriteCommandNs = 8400 // 12,000, -30 %
	dir := t.TempDir()
	b, err := hidden.Marshal()
	require.NoError(t, err)
	drive := filepath.Join(dir, "hidden.yaml")
	require.NoError(t, os.WriteFile(drive, b, 0o644))
	env := smallKit()
	env["SIZE"] = "1g"
	measure(t, drive, dir, env, "fourcorners")
	measure(t, drive, dir, smallKit(), "consistency")

	ts, err := fit.LoadFio(dir)
	require.NoError(t, err)
	res, err := fit.Fit(context.Background(), fit.Options{Base: base, Targets: ts, Seed: 1,
		Progress: func(p fit.Progress) {
			if p.Evaluations%20 == 0 {
				t.Logf("%s: %d evaluations, %d runs, best %.4f", p.Stage, p.Evaluations, p.Runs, p.Best)
			}
		}})
	require.NoError(t, err)
	for i, tg := range res.Targets {
		t.Logf("%-60s %10.1f %10.1f %+6.2f %%", tg.Name(), tg.Value, res.After[i], 100*res.Errors[i])
	}
	for i, tg := range res.Targets {
		require.LessOrEqual(t, math.Abs(res.Errors[i]), 0.02, "%s", tg.Name())
	}
	unid := map[string]bool{}
	for _, p := range res.Unidentifiable {
		unid[p] = true
	}
	for i, p := range res.Params {
		want := p.Value(hidden)
		t.Logf("%-32s start %8.0f fitted %8.0f hidden %8.0f sensitivity %.4f", p.Path, res.Start[i], res.Fitted[i], want, res.Sensitivity[i])
	}
	for i, p := range res.Params {
		want := p.Value(hidden)
		if !unid[p.Path] {
			require.InDelta(t, want, res.Fitted[i], 0.1*want, "%s", p.Path)
		}
	}
	for _, p := range []string{"firmware.read_command_ns", "firmware.write_command_ns", "firmware.gc_streams"} {
		require.False(t, unid[p], "%s: a change the kit measures, named unidentifiable", p)
	}
	t.Logf("unidentifiable: %v; %d evaluations, %d runs, %d preparations, %d forked", res.Unidentifiable, res.Evaluations, res.Runs, res.Preparations, res.Forked)
}
