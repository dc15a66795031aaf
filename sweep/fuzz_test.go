package sweep

import (
	"bytes"
	"testing"
)

// FuzzParse: a study file never panics the parser nor the expansion
// into points; what parses has points numbered in order, each with a
// command line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		gridStudy,
		"drive: generic-mlc-small\nscenario: consistency\naxes: {op: [7, 28], gc_policy: [greedy, fifo]}\nrepeat: 2",
		"drive: generic-mlc-small\naxes: {iodepth: {from: 1, to: 64, times: 2}, bs: [4k, 64k]}\nzip: [[iodepth, bs]]",
		"drive: generic-mlc-small\noptions: {precondition: fill}\naxes: {iodepth: [1, 32], nand.geometry.dies: [4, 8]}",
		"axes: [1, 2]", "drive: x\naxes: {a: {from: 1e308, to: 1e309, step: 1e-300}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("fuzz.yaml", b)
		if err != nil {
			return
		}
		if s.NumPoints() > 2000 {
			return // the expansion of big grids is checked by the tests
		}
		ps, err := s.Points()
		if err != nil {
			return
		}
		for i, p := range ps {
			if p.Index != i || len(p.Args) == 0 || p.Hash == "" {
				t.Fatalf("point %d: %+v", i, p)
			}
		}
	})
}

// FuzzReadResults: a results file never panics the reader.
func FuzzReadResults(f *testing.F) {
	f.Add([]byte(`{"point":1,"coords":{"op":"7"},"seed":3,"hash":"ab","study":"cd","version":"v","metrics":{"iops":1},"output":"points/000001.json"}` + "\n"))
	f.Add([]byte(`{"point":1,"coo`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := readResults("fuzz.jsonl", bytes.NewReader(b))
		if err != nil {
			return
		}
		if _, err := NewTable([]string{"op"}, rs); err != nil {
			return
		}
	})
}
