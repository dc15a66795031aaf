package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// write renders the report folder's files (charts, report.md,
// report.html, data/) and then writes them, each whole (a temporary file
// renamed into place). A series the report shows but the drives' runs
// lack is an error (ErrMissingSeries), and then nothing is written.
func write(o Options, drives []Drive) error {
	files, err := render(o, drives)
	if err != nil {
		return err
	}
	return files.writeTo(o.Out)
}

// render builds every file of the report folder in memory.
func render(o Options, drives []Drive) (fileSet, error) {
	files := fileSet{}
	sp := paramsOf(o.Quick)
	figs, err := buildCharts(drives, sp)
	if err != nil {
		return nil, err
	}
	b, err := blocks(o, drives, figs, sp)
	if err != nil {
		return nil, err
	}
	if err := drawCharts(files, figs); err != nil {
		return nil, err
	}
	if err := addData(files, drives); err != nil {
		return nil, err
	}
	var md bytes.Buffer
	writeMarkdown(&md, b)
	files["report.md"] = md.Bytes()
	page, err := renderHTML(files, b)
	if err != nil {
		return nil, err
	}
	files["report.html"] = page
	return files, nil
}

// fileSet is a report folder's files by path within it (slash-separated).
type fileSet map[string][]byte

// writeTo writes the files into dir, each whole: written to a temporary
// file beside its place, then renamed over it.
func (fs fileSet) writeTo(dir string) error {
	if err := atomicfile.WriteTree(dir, fs); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// addData adds every series as CSV (data/DRIVE_RUN_LABEL.csv) and every
// run as fio-shaped JSON (data/DRIVE_RUN.json).
func addData(files fileSet, drives []Drive) error {
	for _, d := range drives {
		var runs []RunName
		for s := range d.Runs {
			runs = append(runs, s)
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
		for _, s := range runs {
			var jobs []fioreport.Job
			for _, m := range d.Runs[s] {
				jobs = append(jobs, fioreport.JobOf(m.Result, map[string]string{"scenario": string(s), "step": m.Label}))
				files[dataCSV(d.Name, s, Label(m.Label))] = seriesCSV(m.Result.Intervals.Slice())
			}
			var b bytes.Buffer
			if err := fioreport.WriteJSON(&b, map[string]string{"drive": d.Name, "scenario": string(s)}, jobs...); err != nil {
				return fmt.Errorf("report: %s %s: %w", d.Name, s, err)
			}
			files[dataJSON(d.Name, s)] = b.Bytes()
		}
		if d.Endurance != nil {
			if err := addEnduranceData(files, d.Name, d.Endurance); err != nil {
				return err
			}
		}
	}
	return nil
}

// dataCSV is the path of a series' CSV in the report folder.
func dataCSV(drive string, run RunName, label Label) string {
	return fmt.Sprintf("data/%s_%s_%s.csv", safe(drive), run, label)
}

// dataJSON is the path of a run's fio JSON in the report folder.
func dataJSON(drive string, run RunName) string {
	return fmt.Sprintf("data/%s_%s.json", safe(drive), run)
}

func safe(s string) string {
	s = filepath.Base(s)
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, strings.TrimSuffix(s, ".yaml"))
}
