package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// write renders CALIBRATION.md, calibration.json and the charts, all in
// memory first, then puts each file in place whole (a temporary file
// renamed), so that a failure leaves the earlier files as they were.
func write(o options, res results, w io.Writer) error {
	files := map[string][]byte{}
	var md bytes.Buffer
	document(&md, o, res)
	files["CALIBRATION.md"] = md.Bytes()
	var all []*figures
	for _, f := range res {
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Drive != all[j].Drive {
			return all[i].Drive < all[j].Drive
		}
		if all[i].Kind != all[j].Kind {
			return all[i].Kind < all[j].Kind
		}
		return !all[i].Unfitted && all[j].Unfitted // a drive's fitted run before its unfitted one
	})
	js, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		return err
	}
	files["calibration.json"] = append(js, '\n')
	charts, err := chartFiles(res)
	if err != nil {
		return err
	}
	for name, b := range charts {
		files[name] = b
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeWhole(filepath.Join(o.out, n), files[n]); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nwrote %s/CALIBRATION.md, calibration.json and %d charts\n", o.out, len(charts))
	return nil
}

// writeWhole writes b to a temporary file beside file and renames it.
func writeWhole(file string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".calibration-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), file)
}

func f0(x float64) string {
	if math.IsInf(x, 0) {
		return "∞"
	}
	return fmt.Sprintf("%.0f", x)
}

// num prints a figure with the precision its size needs.
func num(x float64) string {
	switch {
	case math.IsInf(x, 0):
		return "∞"
	case math.Abs(x) >= 100:
		return f0(x)
	case math.Abs(x) >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func rangeText(t target) string {
	switch {
	case math.IsInf(t.hi, 1):
		return "≥ " + num(t.lo)
	case t.lo == 0:
		return "≤ " + num(t.hi)
	}
	return num(t.lo) + "–" + num(t.hi)
}

// verdict prints a target's simulated figure and whether it is in range.
func verdict(t target, r results) (string, string) {
	v, ok := t.value(r)
	switch {
	case !ok:
		return "not run", ""
	case v >= t.lo && v <= t.hi:
		return num(v), "yes"
	}
	return num(v), "**no**"
}

func document(b *bytes.Buffer, o options, r results) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("# Calibration: fitted firmware parameters, their targets, and predictions\n\n")
	p("Regenerate with `go run ./examples/calibration` (every preset at full size, about an hour on 2 cores).")
	if o.quick {
		p(" **This copy was made with -quick: drives shrunk to 1 GiB per die and short runs. It checks the pipeline; its figures are not the calibration.**")
	}
	p("\n\nThe firmware parameters that spec sheets do not give — how many garbage-collection copies the firmware keeps in flight (`gc_streams`), how fast paced collection cleans (`gc_pace_percent`), how much blocking collection restores (`gc_restore_to`), the SandForce compression engine's output rate for incompressible data (`compress_out_mbps`), its TRIM backlog (`trim_backlog`) and the firmware time of a miss of its on-chip mapping (`map_miss_ns`) — are fitted to the figures the reviews measured on the real drives (`shared/reference/calibration.md`), the fewest per product line. Every other figure is a prediction of the mechanisms with those values: the validations below (review figures no parameter was fitted to) and the other capacities of each line, which the reviews did not measure. Each procedure is the scenario `ftlsim scenario NAME` runs: `consistency` (2,000 s; the steady state from 1,400 s), `trim-validation --torture_time=60m`, `hdtach --torture=1 --torture_time=60m`.\n\n")

	p("## Fitted parameters\n\n*Predicted before fitting* is the figure with the line's fitted values at their defaults (these fits were made before the prediction ledger: the prediction is reconstructed with today's model; the figures added since are in the ledger below, recorded before their fits).\n\n")
	p("| line | parameter | value | fitted to | the review | accepted | predicted before fitting | fitted | in range |\n|---|---|---|---|---|---|---|---|---|\n")
	before := r.unfitted()
	var valid []target
	for _, t := range targets() {
		if len(t.params) == 0 {
			valid = append(valid, t)
			continue
		}
		var ps, vs []string
		for _, q := range t.params {
			ps = append(ps, "`"+q+"`")
			vs = append(vs, paramValue(t.line, q))
		}
		got, ok := verdict(t, r)
		was, _ := verdict(t, before)
		p("| %s | %s | %s | %s | %s | %s %s | %s | %s | %s |\n", t.line, strings.Join(ps, ", "), strings.Join(vs, ", "), t.what, t.review, rangeText(t), t.unit, was, got, ok)
	}
	p("\nThe BP4 mSATA takes the 2.5\" BP4's `gc_streams` unchanged; its pacing at the level rate (the default) is its one fitted choice. `compress_out_mbps` was first a value of the SF-2281 controller, fitted to the Atlas's clean figure; with it the Intel 525 on the same silicon was predicted at 185.9 / 45.8 / 135.0 MB/s clean, dirty and after TRIM against the 293.5 / 59.8 / 153.3 AnandTech measured (the ledger). No value of the silicon's gives both drives' clean figures (189.2 and 293.5 MB/s), and nothing in their NAND parts, interfaces or dies that the model tells apart explains the difference, so the rate the firmware runs the engine's output at is a firmware value of each line (`controller/presets/controllers/sf-2281.yaml` says so): the 525's Intel firmware is fitted to its clean figure, and its RAISE setting to its dirty one; its after-TRIM figure is a prediction (the validation below). The 525 takes the Atlas firmware's `trim_backlog` and `map_miss_ns` unchanged. `map_miss_ns` was fitted to the Atlas 480 GB's consistency: with the 40 µs estimate the model predicted 10,288 IOPS, faster than the 240 GB (7,849), where the review finds the 480 GB significantly slower, and blames the SF-2281's on-chip resources for tracking twice the pages; a miss that costs the firmware core 200 µs brings the 480 GB to its figure and leaves the 240 GB, whose on-chip mapping covers most of its span, near its own (the ledger).\n\n")

	p("## Validation: review figures no parameter was fitted to\n\n| line | figure | the review | accepted | simulated | in range |\n|---|---|---|---|---|---|\n")
	for _, t := range valid {
		got, ok := verdict(t, r)
		p("| %s | %s | %s | %s %s | %s | %s |\n", t.line, t.what, t.review, rangeText(t), t.unit, got, ok)
	}

	p("\n## Predictions: consistency on every preset\n\n4 KiB random writes at QD 32 over every LBA after a fill; the steady state from 70 %% of the run (1,400 s of 2,000). *Calibrated* marks the drive the reviews measured; every other row is a prediction (the Marvell lines have no consistency figure in `calibration.md`: their GC cost is the flash's alone, `gc_streams` unset).\n\n")
	p("| line | drive | user GB | | median IOPS | 10–90 %% | peak | median of seconds with I/O | seconds at 0 | longest stall s | WA |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range lines {
		for _, d := range l.drives {
			for _, k := range []kind{consistency, consistency25} {
				f := r.get(d, k)
				if f == nil {
					continue
				}
				s := f.Consistency
				role := "prediction"
				if d == l.calibrated || fittedTo(d, "consistency") {
					role = "calibrated"
				}
				if k == consistency25 {
					role += ", 25 % spare"
				}
				p("| %s | %s | %.0f | %s | %s | %s–%s | %s | %s | %d | %d | %.2f |\n", l.name, d, f.UserGB, role, f0(s.SteadyMedian), f0(s.SteadyP10), f0(s.SteadyP90), f0(s.SteadyMax), f0(s.SteadyActiveMedian), s.ZeroSeconds, s.LongestStall, s.SteadyWA)
			}
		}
	}

	p("\n## Predictions: TRIM validation\n\n128 KiB sequential writes of incompressible data at QD 1 for 60 s: clean (after a secure erase), dirty (after a fill and 60 minutes of 4 KiB random writes at QD 32), and after a TRIM of every LBA. The reviews measured the Atlas 240 GB (189.2 / 35.2 / 106.6 MB/s) and, after a 30-minute torture, the Intel 525 240 GB (293.5 / 59.8 / 153.3 MB/s; the 525's row is tortured for 30 minutes, as AnandTech did; every other row for 60).\n\n| drive | clean MB/s | dirty MB/s | after TRIM MB/s | after TRIM / clean |\n|---|---|---|---|---|\n")
	for _, l := range lines {
		for _, d := range l.drives {
			if f := r.get(d, trimValidation); f != nil {
				p("| %s | %.1f | %.1f | %.1f | %.0f %% |\n", d, f.Clean, f.Dirty, f.AfterTrim, 100*f.AfterTrim/math.Max(f.Clean, 1e-9))
			}
		}
	}

	p("\n## Predictions: HD Tach after torture\n\nFull-span 64 KiB sequential writes after a fill and 60 minutes of 4 KiB random writes. The reviews measured the BP4 2.5\" 240 GB (about 20 MB/s at the start, above 300 MB/s after about 150 GB). The 960 GB drive is left out: its span takes as long as all the others.\n\n| drive | user GB | mean MB/s over the first 10 GB | GB written before a second above 300 MB/s |\n|---|---|---|---|\n")
	for _, l := range lines {
		for _, d := range l.drives {
			if f := r.get(d, hdTach); f != nil {
				to := "never"
				if f.GBTo300 >= 0 {
					to = fmt.Sprintf("%.0f", f.GBTo300)
				}
				p("| %s | %.0f | %.1f | %s |\n", d, f.UserGB, f.First10GB, to)
			}
		}
	}

	ledger(b, r)

	p("\n## Charts\n\n")
	for _, c := range chartList {
		if c.available(r) {
			p("![%s](%s)\n\n", c.title, c.file)
		}
	}
}
