package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

// TestQuickCalibration runs the pipeline on the BP3 line's calibrated
// drive, shrunk, and checks what it writes: every target of that line
// with a simulated figure, the consistency prediction rows, the chart of
// the drive, and JSON that reads back to the same figures.
func TestQuickCalibration(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run(options{out: dir, quick: true, jobs: 2, drives: "bp3-256"}, io.Discard))
	md, err := os.ReadFile(filepath.Join(dir, "CALIBRATION.md"))
	require.NoError(t, err)
	doc := string(md)
	require.Contains(t, doc, "made with -quick")
	for _, tg := range targets() {
		if tg.line != "bp3" {
			continue
		}
		row := lineOf(doc, tg.what)
		require.NotEmpty(t, row, tg.what)
		require.NotContains(t, row, "not run", tg.what)
	}
	require.Contains(t, doc, "| bp3 | bp3-256 |")
	require.FileExists(t, filepath.Join(dir, "consistency-bp3-256.png"))
	require.NoFileExists(t, filepath.Join(dir, "hdtach-bp4-240.png"), "only the runs asked for")
	js, err := os.ReadFile(filepath.Join(dir, "calibration.json"))
	require.NoError(t, err)
	var figs []figures
	require.NoError(t, json.Unmarshal(js, &figs))
	require.Len(t, figs, 3, "consistency with and without 25 % spare, and unfitted")
	unfitted := 0
	for _, f := range figs {
		require.Equal(t, "bp3-256", f.Drive)
		require.NotNil(t, f.Consistency)
		require.NotEmpty(t, f.IOPS)
		if f.Unfitted {
			unfitted++
		}
	}
	require.Equal(t, 1, unfitted, "the fitted targets' prediction before fitting")
	// The unfitted run is the fitted drive with its fitted values at their
	// defaults: BP3's stalls come from them.
	for _, tg := range targets() {
		if tg.line == "bp3" && len(tg.params) > 0 {
			require.NotContains(t, lineOf(doc, tg.what), "| not run |", tg.what)
		}
	}
	// The document again from the saved figures: the same text.
	require.NoError(t, os.Remove(filepath.Join(dir, "CALIBRATION.md")))
	require.NoError(t, run(options{out: dir, render: true}, io.Discard))
	again, err := os.ReadFile(filepath.Join(dir, "CALIBRATION.md"))
	require.NoError(t, err)
	require.Equal(t, doc, string(again))
}

func lineOf(doc, s string) string {
	for _, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestBadOptions: options that cannot run say so, and write nothing.
func TestBadOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	require.ErrorContains(t, run(options{out: dir, jobs: 0}, io.Discard), "-j=0")
	require.ErrorContains(t, run(options{out: dir, jobs: 1, drives: "no-such-drive"}, io.Discard), "-drives=no-such-drive")
	require.NoDirExists(t, dir)
}

// TestTargetsAreTheReviews: every target's accepted range contains the
// review's own figure where the review gives one number, so that the
// ranges test the simulator and not a typing slip; every fitted
// parameter names a value in its line's preset; every line's calibrated
// drive is one of its drives and a preset.
func TestTargetsAreTheReviews(t *testing.T) {
	for _, tg := range targets() {
		require.Less(t, tg.lo, tg.hi, tg.what)
		for _, q := range tg.params {
			require.NotEqual(t, "?", paramValue(tg.line, q), "%s: %s", tg.line, q)
		}
		var x float64
		if n, err := fmt.Sscan(tg.review, &x); err == nil && n == 1 && strings.HasSuffix(tg.review, tg.unit) {
			require.True(t, x >= tg.lo && x <= tg.hi && !math.IsInf(x, 0), "%s: the review's %v outside %v-%v", tg.what, x, tg.lo, tg.hi)
		}
	}
	for _, l := range lines {
		for _, d := range l.drives {
			_, err := controller.Preset(d)
			require.NoError(t, err, d)
		}
		if l.calibrated != "" {
			require.Contains(t, l.drives, l.calibrated)
		}
	}
}

// TestUnfitReturnsFittedValuesToDefaults: every value the ledger and the
// targets name as fitted has a default unfit returns it to, and an
// unfitted drive differs from its preset exactly in those values.
func TestUnfitReturnsFittedValuesToDefaults(t *testing.T) {
	for _, l := range lines {
		for _, d := range l.drives {
			cfg, err := controller.Preset(d)
			require.NoError(t, err)
			was := cfg
			require.NoError(t, unfit(&cfg, l.name), d)
			for _, q := range fittedParams(l.name) {
				require.NotEqual(t, "?", paramValue(l.name, q), "%s: %s", l.name, q)
			}
			a, _ := was.Marshal()
			b, _ := cfg.Marshal()
			if len(fittedParams(l.name)) == 0 {
				require.Equal(t, string(a), string(b), d)
			}
		}
	}
	cfg, _ := controller.Preset("x25m-g1-80")
	require.NoError(t, unfit(&cfg, "x25m-g1"))
	require.Zero(t, cfg.Firmware.WriteCommandNs)
	require.Zero(t, cfg.Firmware.ReadCommandNs)
	require.Zero(t, cfg.Firmware.DatapathWriteMBps)
	require.NotZero(t, cfg.Firmware.CommandNs, "an estimate, not fitted")
}
