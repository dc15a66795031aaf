package report

import (
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ftlsim/ftlsim/sim"
)

// block is one piece of the report: a heading, a paragraph, a table or
// charts. Markdown and HTML render the same blocks.
type block struct {
	heading string
	para    string
	table   [][]string // first row is the header
	charts  []chart
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

// blocks builds the report's content in the reviews' order. A series
// missing from a drive's runs is an error (ErrMissingSeries).
func blocks(o Options, drives []Drive, charts []chart) ([]block, error) {
	byFile := map[string]chart{}
	for _, c := range charts {
		byFile[c.File] = c
	}
	pick := func(files ...string) []chart {
		var out []chart
		for _, f := range files {
			out = append(out, byFile[f])
		}
		return out
	}
	mode := "the reviews' full procedure"
	if o.Quick {
		mode = "quick mode: each drive keeps its controller, NAND and die count but is shrunk to 1 GiB per die (at least 8 GiB), and runs are shortened (consistency 600 s); the charts keep their shape"
	}
	var b []block
	var names []string
	for _, d := range drives {
		names = append(names, d.Name)
	}
	b = append(b, block{heading: "# ftlsim review: " + strings.Join(names, ", ")},
		block{para: "Simulated with ftlsim: " + mode + ". Regenerate with `ftlsim review --drive=" + strings.Join(names, ",") + map[bool]string{true: " --quick", false: ""}[o.Quick] + "`. Every series is in `data/` as CSV, every run as fio-shaped JSON."})
	var dl []string
	for _, d := range drives {
		dl = append(dl, "- "+describe(d))
	}
	b = append(b, block{heading: "## The drives"}, block{para: strings.Join(dl, "\n")})

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
	b = append(b, block{heading: "## Four corners (Iometer)"}, block{table: t}, block{charts: pick("four-corners-seq", "four-corners-random")})

	b = append(b, block{heading: "## ATTO"}, block{para: "Sequential write then read of a file at each transfer size from 0.5 KiB to 8 MiB, QD 4: throughput rises with transfer size until the flash, the controller or the link bounds it."},
		block{charts: pick("atto")})

	t = [][]string{{"drive", "full-span read MB/s", "full-span write MB/s", "access time 512 B µs", "4 KiB µs", "64 KiB µs", "1 MiB µs"}}
	for _, d := range drives {
		r, err := d.results(RunHDTach, LabelReadCurve, LabelWriteCurve, LabelAccess512, LabelAccess4k, LabelAccess64k, LabelAccess1m)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1])),
			us(r[2].Read.Latency.Mean), us(r[3].Read.Latency.Mean), us(r[4].Read.Latency.Mean), us(r[5].Read.Latency.Mean)})
	}
	b = append(b, block{heading: "## HD Tach"}, block{table: t}, block{charts: pick("hdtach")})

	t = [][]string{{"drive", "spare area", "fresh IOPS", "cliff at s", "steady median IOPS", "10th-90th percentile", "steady max IOPS", "seconds at 0", "longest stall s", "steady WA"}}
	for _, d := range drives {
		for _, run := range []RunName{RunConsistency, RunConsistency25} {
			r, err := d.Result(run, LabelConsistency)
			if err != nil {
				return nil, err
			}
			s := sim.SummarizeConsistency(r.Intervals, (r.EndNs-r.StartNs)*7/10)
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
	b = append(b, block{heading: "## Performance consistency"},
		block{para: "Secure erase, sequential fill, then 4 KiB random writes at QD 32 over every LBA, IOPS each second; again with 25 % of the LBAs left unwritten. The steady-state window is the last 30 % of the run (from 1,400 s of 2,000)."},
		block{table: t}, block{charts: pick("consistency-log", "consistency-steady-log", "consistency-steady-linear", "latency-cdf")})

	t = [][]string{{"drive", "clean MB/s", "dirty MB/s", "after TRIM MB/s"}}
	for _, d := range drives {
		r, err := d.results(RunTRIMValidation, LabelClean, LabelDirty, LabelAfterTrim)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, f0(mbps(r[0])), f0(mbps(r[1])), f0(mbps(r[2]))})
	}
	b = append(b, block{heading: "## TRIM validation"}, block{para: "128 KiB sequential writes at QD 1: on a clean drive, after a fill and a torture of 4 KiB random writes, and after a TRIM of every LBA."}, block{table: t})

	t = [][]string{{"drive", "idle W", "sequential write W", "random write W", "J per GB written (sequential)"}}
	for _, d := range drives {
		r, err := d.results(RunPower, LabelIdle, LabelSeqWrite, LabelRandomWrite)
		if err != nil {
			return nil, err
		}
		t = append(t, []string{d.Name, fmt.Sprintf("%.2f", r[0].Power.AverageW), fmt.Sprintf("%.2f", r[1].Power.AverageW),
			fmt.Sprintf("%.2f", r[2].Power.AverageW), fmt.Sprintf("%.1f", r[1].Power.JoulesPerGBWritten)})
	}
	b = append(b, block{heading: "## Power"}, block{table: t})

	t = [][]string{{"drive", "read MB/s", "write MB/s", "combined MB/s", "busy s", "average service time µs"}}
	for _, d := range drives {
		r, err := d.Result(RunStorageBenchHeavy, LabelBench)
		if err != nil {
			return nil, err
		}
		busy := float64(r.BusyNs) / 1e9
		t = append(t, []string{d.Name, fmt.Sprintf("%.1f", float64(r.Read.Bytes)/busy/1e6), fmt.Sprintf("%.1f", float64(r.Write.Bytes)/busy/1e6),
			fmt.Sprintf("%.1f", float64(r.Read.Bytes+r.Write.Bytes)/busy/1e6), fmt.Sprintf("%.1f", busy), fmt.Sprintf("%.0f", r.AvgServiceNs/1e3)})
	}
	b = append(b, block{heading: "## Storage Bench 2011 Heavy (synthesised)"},
		block{para: "A workload synthesised from the suite's published statistics (see `ftlsim scenario`), after a fill; data rates over busy time, idle excluded."},
		block{table: t})
	return b, nil
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
				fmt.Fprintf(w, "![%s](%s.png)\n\n", c.Caption, c.File)
			}
		}
	}
}

// writeHTML writes report.html with the charts embedded, so that the one
// file shows everything.
func writeHTML(dir string, blocks []block) error {
	f, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	w := f
	fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>ftlsim review</title><style>
body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f0f0f0}td:first-child{text-align:left}
img{max-width:100%}code{background:#f4f4f4;padding:1px 4px}</style></head><body>
`)
	for _, b := range blocks {
		switch {
		case b.heading != "":
			level := strings.Count(strings.SplitN(b.heading, " ", 2)[0], "#")
			fmt.Fprintf(w, "<h%d>%s</h%d>\n", level, html.EscapeString(strings.SplitN(b.heading, " ", 2)[1]), level)
		case b.para != "":
			text := html.EscapeString(b.para)
			for strings.Count(text, "`") >= 2 {
				text = strings.Replace(strings.Replace(text, "`", "<code>", 1), "`", "</code>", 1)
			}
			if strings.HasPrefix(b.para, "- ") {
				fmt.Fprintf(w, "<ul><li>%s</li></ul>\n", strings.ReplaceAll(strings.TrimPrefix(text, "- "), "\n- ", "</li><li>"))
			} else {
				fmt.Fprintf(w, "<p>%s</p>\n", text)
			}
		case b.table != nil:
			fmt.Fprint(w, "<table>")
			for i, row := range b.table {
				tag := "td"
				if i == 0 {
					tag = "th"
				}
				fmt.Fprint(w, "<tr>")
				for _, c := range row {
					fmt.Fprintf(w, "<%s>%s</%s>", tag, html.EscapeString(c), tag)
				}
				fmt.Fprint(w, "</tr>")
			}
			fmt.Fprint(w, "</table>\n")
		default:
			for _, c := range b.charts {
				png, err := os.ReadFile(filepath.Join(dir, c.File+".png"))
				if err != nil {
					f.Close()
					return err
				}
				fmt.Fprintf(w, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption>%s</figcaption></figure>\n",
					html.EscapeString(c.Caption), base64.StdEncoding.EncodeToString(png), html.EscapeString(c.Caption))
			}
		}
	}
	fmt.Fprint(w, "</body></html>\n")
	return f.Close()
}
