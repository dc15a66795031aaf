package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/sim/analysis"
	"github.com/ftlsim/ftlsim/workload"
)

// block is one piece of the report: a heading, a paragraph, a table or
// charts. Markdown and HTML render the same blocks. Paragraphs may hold
// Markdown code spans and links ([text](href)), and a paragraph whose
// lines start with "- " is a list.
type block struct {
	heading string
	para    string
	table   [][]string // first row is the header
	charts  []*figure
}

func mdTable(w io.Writer, t [][]string) {
	for i, row := range t {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(row)))
		}
	}
	fmt.Fprintln(w)
}

func us(ns float64) string { return fmt.Sprintf("%.0f", ns/1e3) }

// describeScenario is a scenario's description (package workload's), for
// runs whose lengths it does not state.
func describeScenario(r RunName) string {
	sc, err := workload.ScenarioByName(r.scenario())
	if err != nil {
		panic("report: " + err.Error())
	}
	return sc.Description
}

// dataLinks is a paragraph linking each drive's fio JSON of runs.
func dataLinks(drives []Drive, runs ...RunName) block {
	var links []string
	for _, run := range runs {
		for _, d := range drives {
			links = append(links, fmt.Sprintf("[%s %s](%s)", d.Name, run, dataJSON(d.Name, run)))
		}
	}
	return block{para: "fio JSON: " + strings.Join(links, ", ") + "; every series as CSV in `data/`."}
}

// blocks builds the report's content in the reviews' order. A series
// missing from a drive's runs is an error (ErrMissingSeries). The run
// lengths the text states are the suite's parameters (sp), the ones the
// runs used.
func blocks(o Options, drives []Drive, charts []*figure, sp suiteParams) ([]block, error) {
	byFile := map[string]*figure{}
	for _, c := range charts {
		byFile[c.file] = c
	}
	pick := func(files ...string) block {
		var out []*figure
		for _, f := range files {
			c, ok := byFile[f]
			if !ok {
				panic("report: no chart " + f)
			}
			out = append(out, c)
		}
		return block{charts: out}
	}
	b := introBlocks(o, drives)
	for _, section := range []func([]Drive, suiteParams, func(...string) block) ([]block, error){
		fourCornersSection, accessSection, asSSDSection, attoSection, hdTachSection, sustainedSection,
		consistencySection, trimSection, benchSection, powerSection,
	} {
		sb, err := section(drives, sp, pick)
		if err != nil {
			return nil, err
		}
		b = append(b, sb...)
	}
	// Endurance (Options.Endurance).
	if hasEndurance(drives) {
		eb, err := enduranceBlocks(o, drives, pick)
		if err != nil {
			return nil, err
		}
		b = append(b, eb...)
	}
	return b, nil
}

// introBlocks are the report's title, how it was made, and the drives.
func introBlocks(o Options, drives []Drive) []block {
	mode := "the reviews' full procedure and run lengths"
	flag := ""
	if o.Quick {
		mode = "quick mode: each drive keeps its controller, firmware, NAND and die count but has a smaller capacity (below), and every run is shortened; each section states the run lengths used"
		flag = " --quick"
	}
	if hasEndurance(drives) {
		flag += " --endurance"
	}
	var b []block
	b = append(b, block{heading: "# ftlsim review: " + strings.Join(names(drives), ", ")},
		block{para: "Simulated with ftlsim: " + mode + ". Regenerate with `ftlsim review --drive=" + strings.Join(names(drives), ",") + flag +
			"` (from a checkout: `go run ./cmd/ftlsim review ...`). Every series is in `data/` as CSV (a row a second), every run as fio-shaped JSON; each chart is also an SVG file."})
	var dl []string
	for _, d := range drives {
		dl = append(dl, "- "+describe(d))
	}
	return append(b, block{heading: "## The drives"}, block{para: strings.Join(dl, "\n")})
}

// fourCornersSection is Iometer's four corners.
func fourCornersSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "128K seq read MB/s", "128K seq write MB/s", "4K rand read IOPS QD3 / QD32", "4K rand write IOPS QD3 / QD32"}}
	for _, d := range drives {
		r, err := d.results(RunFourCorners, LabelSeqRead128kQD1, LabelSeqWrite128kQD1,
			LabelRandRead4kQD3, LabelRandRead4kQD32, LabelRandWrite4kQD3, LabelRandWrite4kQD32)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1])),
			f0(iops(r[2])) + " / " + f0(iops(r[3])),
			f0(iops(r[4])) + " / " + f0(iops(r[5]))})
	}
	return []block{{heading: "## Four corners (Iometer)"},
		{para: fmt.Sprintf("On a secure-erased drive: 128 KiB sequential writes at QD 1 for %s, 4 KiB random writes over %s at QD 3 and QD 32 for %s each; then a fill, and the reads alike. Data pattern written: %s.",
			sp.dur(RunFourCorners, "seq_time"), units.FormatBytes(mustSize(sp.param(RunFourCorners, "span"))), sp.dur(RunFourCorners, "random_time"), sp.param(RunFourCorners, "data"))},
		{table: t}, pick("four-corners-seq", "four-corners-random"), dataLinks(drives, RunFourCorners)}, nil
}

// accessSection is TechReport's access patterns.
func accessSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "pattern"}}
	for _, qd := range accessQDs() {
		t[0] = append(t[0], fmt.Sprintf("QD %d IOPS", qd))
	}
	for _, d := range drives {
		for _, pat := range accessPatterns() {
			row := []string{d.Name, pat}
			for _, qd := range accessQDs() {
				r, err := d.Result(RunAccessPatterns, accessLabel(pat, qd))
				if err != nil {
					return nil, err
				}
				row = append(row, f0(iops(r)))
			}
			t = append(t, row)
		}
	}
	return []block{{heading: "## Access patterns (TechReport)"},
		{para: describeScenario(RunAccessPatterns) + "; " + sp.dur(RunAccessPatterns, "time") + " at each queue depth."},
		{table: t}, pick("access-patterns"), dataLinks(drives, RunAccessPatterns)}, nil
}

// asSSDSection is AS-SSD's sequential runs.
func asSSDSection(drives []Drive, _ suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "seq read MB/s", "seq write MB/s"}}
	for _, d := range drives {
		r, err := d.results(RunASSSD, LabelSeqRead, LabelSeqWrite)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1]))})
	}
	return []block{{heading: "## AS-SSD"},
		{para: describeScenario(RunASSSD) + ": drives that compress what they store gain nothing from it here."},
		{table: t}, pick("as-ssd"), dataLinks(drives, RunASSSD)}, nil
}

// attoSection is ATTO's transfer sizes.
func attoSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	shown := []string{"512", "4k", "8k", "128k", "1m", "8m"}
	t := [][]string{{"drive", "direction"}}
	for _, s := range shown {
		t[0] = append(t[0], units.FormatBytes(mustSize(s))+" MB/s")
	}
	for _, d := range drives {
		for _, dir := range []string{"read", "write"} {
			row := []string{d.Name, dir}
			for _, s := range shown {
				r, err := d.Result(RunATTO, attoLabel(dir, s))
				if err != nil {
					return nil, err
				}
				row = append(row, f0(mbps(r)))
			}
			t = append(t, row)
		}
	}
	return []block{{heading: "## ATTO"},
		{para: fmt.Sprintf("Sequential write then read of %s at each transfer size from %s to %s, QD 4, data pattern %s: throughput rises with transfer size until the flash, the controller or the link bounds it.",
			units.FormatBytes(mustSize(sp.param(RunATTO, "length"))), units.FormatBytes(mustSize(attoSizes()[0])), units.FormatBytes(mustSize(attoSizes()[len(attoSizes())-1])), sp.param(RunATTO, "data"))},
		{table: t}, pick("atto"), dataLinks(drives, RunATTO)}, nil
}

// hdTachSection is HD Tach's curves and access times.
func hdTachSection(drives []Drive, _ suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "full-span read MB/s", "full-span write MB/s", "access time 512 B µs", "4 KiB µs", "64 KiB µs", "1 MiB µs"}}
	for _, d := range drives {
		r, err := d.results(RunHDTach, LabelReadCurve, LabelWriteCurve, LabelAccess512, LabelAccess4k, LabelAccess64k, LabelAccess1m)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1])),
			us(r[2].Read.Latency.Mean), us(r[3].Read.Latency.Mean), us(r[4].Read.Latency.Mean), us(r[5].Read.Latency.Mean)})
	}
	return []block{{heading: "## HD Tach"},
		{para: "On a secure-erased drive: a 64 KiB sequential write of the whole span, then a read of it, and random reads of 512 B, 4 KiB, 64 KiB and 1 MiB (access times)."},
		{table: t}, pick("hdtach"), dataLinks(drives, RunHDTach)}, nil
}

// consistencySection is the performance-consistency runs, with the
// drive's own spare area and with 25 % more.
func consistencySection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "spare area", "fresh IOPS", "cliff at s", "steady median IOPS", "10th-90th percentile", "steady max IOPS", "seconds at 0", "longest stall s", "steady WA"}}
	for _, d := range drives {
		for _, run := range []RunName{RunConsistency, RunConsistency25} {
			r, err := d.Result(run, LabelConsistency)
			if err != nil {
				return nil, err
			}
			s := analysis.SummarizeConsistency(r.Intervals.Slice(), steadyFrom(r))
			spare := "drive's own"
			if run == RunConsistency25 {
				spare = "+25 % (partitioned)"
			}
			cliff := "none"
			if s.CliffNs >= 0 {
				cliff = f0(float64(s.CliffNs) / 1e9)
			}
			t = append(t, []string{d.Name, spare, f0(s.FreshIOPS), cliff, f0(s.SteadyMedian), f0(s.SteadyP10) + "-" + f0(s.SteadyP90),
				f0(s.SteadyMax), fmt.Sprint(s.ZeroSeconds), fmt.Sprint(s.LongestStall), fmt.Sprintf("%.2f", s.SteadyWA)})
		}
	}
	runLen := sp.ns(RunConsistency, "time")
	if l25 := sp.ns(RunConsistency25, "time"); l25 != runLen {
		panic("report: the consistency runs differ in length")
	}
	full := ""
	if reviews := paramsOf(false).ns(RunConsistency, "time"); reviews != runLen {
		full = " (the reviews run " + seconds(reviews) + ")"
	}
	return []block{{heading: "## Performance consistency"},
		{para: fmt.Sprintf("Secure erase, sequential fill, then 4 KiB random writes at QD 32 over every LBA for %s%s, IOPS each second; again with 25 %% of the LBAs left unwritten (spare area by partitioning). "+
			"The steady-state window is the last %d %% of the run (from %s of %s). The whole-run chart has a log time axis, so that the fresh plateau and the cliff in the first seconds are as wide as the last minutes.",
			seconds(runLen), full, 100-steadyFromPct, seconds(runLen*steadyFromPct/100), seconds(runLen))},
		{table: t}, pick("consistency-log", "consistency-steady-log", "consistency-steady-linear", "latency-cdf"), dataLinks(drives, RunConsistency, RunConsistency25)}, nil
}

// trimSection is the TRIM validation.
func trimSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "clean MB/s", "dirty MB/s", "after TRIM MB/s"}}
	for _, d := range drives {
		r, err := d.results(RunTRIMValidation, LabelClean, LabelDirty, LabelAfterTrim)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1])), f0(mbps(r[2]))})
	}
	return []block{{heading: "## TRIM validation"},
		{para: fmt.Sprintf("128 KiB sequential writes at QD 1 for %s each: on a clean drive; after a fill and a torture of 4 KiB random writes at QD 32 over every LBA for %s; and after a TRIM of every LBA.",
			sp.dur(RunTRIMValidation, "measure_time"), sp.dur(RunTRIMValidation, "torture_time"))},
		{table: t}, pick("trim-validation"), dataLinks(drives, RunTRIMValidation)}, nil
}

// benchSection is the synthesised Storage Bench suites.
func benchSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	runs, suites := benchRuns()
	t := [][]string{{"drive", "suite", "read MB/s", "write MB/s", "combined MB/s", "busy s", "average service time µs"}}
	for _, d := range drives {
		for k, run := range runs {
			r, err := d.Result(run, LabelBench)
			if err != nil {
				return nil, err
			}
			busy := float64(r.BusyNs) / 1e9
			t = append(t, []string{d.Name, suites[k], fmt.Sprintf("%.1f", float64(r.Read.Bytes)/busy/1e6), fmt.Sprintf("%.1f", float64(r.Write.Bytes)/busy/1e6),
				fmt.Sprintf("%.1f", benchMBps(r)), fmt.Sprintf("%.1f", busy), fmt.Sprintf("%.0f", r.AvgServiceNs/1e3)})
		}
	}
	var lens []string
	same := true
	for k, run := range runs {
		l := fmt.Sprintf("%s of activity in %s phases with %s idle between them", sp.dur(run, "time"), sp.param(run, "phases"), sp.dur(run, "idle"))
		same = same && (k == 0 || l == lens[0])
		lens = append(lens, l)
	}
	if same {
		lens = lens[:1]
	} else {
		for k := range lens {
			lens[k] = suites[k] + " " + lens[k]
		}
	}
	return []block{{heading: "## Storage Bench (synthesised)"},
		{para: "AnandTech's Storage Bench 2011 Heavy and Light and The Destroyer, as workloads synthesised from the suites' published statistics (request counts, read share, size mix, queue depths; `ftlsim scenario` lists them and the assumptions), each after a fill: " +
			strings.Join(lens, "; ") + ". Data rates are over busy time, idle excluded."},
		{table: t}, pick("storage-bench"), dataLinks(drives, runs...)}, nil
}

// powerSection is the power runs.
func powerSection(drives []Drive, sp suiteParams, pick func(...string) block) ([]block, error) {
	t := [][]string{{"drive", "idle W", "sequential write W", "random write W", "J per GB written (sequential)"}}
	for _, d := range drives {
		r, err := d.results(RunPower, LabelIdle, LabelSeqWrite, LabelRandomWrite)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, fmt.Sprintf("%.2f", r[0].Power.AverageW), fmt.Sprintf("%.2f", r[1].Power.AverageW),
			fmt.Sprintf("%.2f", r[2].Power.AverageW), fmt.Sprintf("%.1f", r[1].Power.JoulesPerGBWritten)})
	}
	return []block{{heading: "## Power"},
		{para: fmt.Sprintf("Average power from the drive's rail, %s each: idle, 128 KiB sequential writes at QD 1, and 4 KiB random writes at QD 32 on a fresh drive.", sp.dur(RunPower, "time"))},
		{table: t}, pick("power"), dataLinks(drives, RunPower)}, nil
}

// writeMarkdown writes the report's blocks as Markdown.
func writeMarkdown(w io.Writer, blocks []block) {
	for _, b := range blocks {
		switch {
		case b.heading != "":
			fmt.Fprintf(w, "%s\n\n", b.heading)
		case b.para != "":
			fmt.Fprintf(w, "%s\n\n", b.para)
		case b.table != nil:
			mdTable(w, b.table)
		default:
			for _, c := range b.charts {
				fmt.Fprintf(w, "![%s](%s.png)\n\n*%s* ([SVG](%s.svg))\n\n", c.caption, c.file, c.caption, c.file)
			}
		}
	}
}

// inline renders a paragraph's Markdown code spans and links as HTML.
func inline(s string) string {
	s = html.EscapeString(s)
	s = regexp.MustCompile("`([^`]+)`").ReplaceAllString(s, "<code>$1</code>")
	return regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`).ReplaceAllString(s, `<a href="$2">$1</a>`)
}

// renderHTML renders report.html with the charts embedded as data: URIs
// (files holds their PNGs), so that the one file shows everything.
func renderHTML(files fileSet, blocks []block) ([]byte, error) {
	var w bytes.Buffer
	fmt.Fprint(&w, `<!doctype html><html><head><meta charset="utf-8"><title>ftlsim review</title><style>
body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f0f0f0}td:first-child{text-align:left}
figure{margin:1.5em 0}img{max-width:100%}figcaption{font-size:90%;color:#444}code{background:#f4f4f4;padding:1px 4px}</style></head><body>
`)
	for _, b := range blocks {
		switch {
		case b.heading != "":
			marks, title, _ := strings.Cut(b.heading, " ")
			level := len(marks)
			fmt.Fprintf(&w, "<h%d>%s</h%d>\n", level, html.EscapeString(title), level)
		case b.para != "":
			if strings.HasPrefix(b.para, "- ") {
				var items []string
				for _, l := range strings.Split(b.para, "\n") {
					items = append(items, inline(strings.TrimPrefix(l, "- ")))
				}
				fmt.Fprintf(&w, "<ul><li>%s</li></ul>\n", strings.Join(items, "</li><li>"))
			} else {
				fmt.Fprintf(&w, "<p>%s</p>\n", inline(b.para))
			}
		case b.table != nil:
			fmt.Fprint(&w, "<table>")
			for i, row := range b.table {
				tag := "td"
				if i == 0 {
					tag = "th"
				}
				fmt.Fprint(&w, "<tr>")
				for _, c := range row {
					fmt.Fprintf(&w, "<%s>%s</%s>", tag, html.EscapeString(c), tag)
				}
				fmt.Fprint(&w, "</tr>")
			}
			fmt.Fprint(&w, "</table>\n")
		default:
			for _, c := range b.charts {
				png, ok := files[c.file+".png"]
				if !ok {
					return nil, fmt.Errorf("report: chart %s was not drawn", c.file)
				}
				fmt.Fprintf(&w, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption>%s (<a href=\"%s.svg\">SVG</a>)</figcaption></figure>\n",
					html.EscapeString(c.caption), base64.StdEncoding.EncodeToString(png), html.EscapeString(c.caption), html.EscapeString(c.file))
			}
		}
	}
	fmt.Fprint(&w, "</body></html>\n")
	return w.Bytes(), nil
}
