package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/workload"
)

// suiteRun is a run of the suite and its scenario's parameters (those
// not given take the scenario's defaults).
type suiteRun struct {
	name   RunName
	params map[string]string
}

// suite lists the review's runs and their parameters, full and quick, in
// the reviews' order.
func suite(quick bool) []suiteRun {
	if quick {
		return []suiteRun{
			{RunFourCorners, map[string]string{"random_time": "5s", "seq_time": "5s"}},
			{RunAccessPatterns, map[string]string{"time": "3s"}},
			{RunASSSD, nil},
			{RunATTO, map[string]string{"length": "64m"}},
			{RunHDTach, nil},
			{RunSustainedWrite, nil},
			{RunSustained80, map[string]string{"fill": "80", "settle": "10m"}},
			{RunSustainedIdle, map[string]string{"span": "50", "idle": "10m", "burst": "25"}},
			{RunConsistency, map[string]string{"time": "600s"}},
			{RunConsistency25, map[string]string{"time": "600s", "spare": "25"}},
			{RunTRIMValidation, map[string]string{"torture_time": "300s", "measure_time": "20s"}},
			{RunStorageBenchHeavy, map[string]string{"time": "60s"}},
			{RunStorageBenchLight, map[string]string{"time": "60s"}},
			{RunDestroyer, map[string]string{"time": "60s"}},
			{RunPower, map[string]string{"time": "10s"}},
		}
	}
	return []suiteRun{
		{RunFourCorners, nil},
		{RunAccessPatterns, nil},
		{RunASSSD, nil},
		{RunATTO, nil},
		{RunHDTach, nil},
		{RunSustainedWrite, nil},
		{RunSustained80, map[string]string{"fill": "80", "settle": "60m"}},
		{RunSustainedIdle, map[string]string{"span": "50", "idle": "30m", "burst": "25"}},
		{RunConsistency, nil},
		{RunConsistency25, map[string]string{"spare": "25"}},
		{RunTRIMValidation, nil},
		{RunStorageBenchHeavy, map[string]string{"time": "10m"}},
		{RunStorageBenchLight, map[string]string{"time": "10m"}},
		{RunDestroyer, map[string]string{"time": "10m"}},
		{RunPower, nil},
	}
}

// suiteParams is the suite's parameters, by run.
type suiteParams map[RunName]suiteRun

func paramsOf(quick bool) suiteParams {
	out := suiteParams{}
	for _, s := range suite(quick) {
		out[s.name] = s
	}
	return out
}

// param returns the value run r is run with for the scenario parameter
// name: the suite's, or else the scenario's default. A parameter the
// scenario does not have is a programming error.
func (sp suiteParams) param(r RunName, name string) string {
	s, ok := sp[r]
	if !ok {
		panic(fmt.Sprintf("report: run %s is not in the suite", r))
	}
	if v, ok := s.params[name]; ok {
		return v
	}
	sc, err := workload.ScenarioByName(r.scenario())
	if err != nil {
		panic(fmt.Sprintf("report: %v", err))
	}
	for _, p := range sc.Params {
		if p.Name == name {
			return p.Default
		}
	}
	panic(fmt.Sprintf("report: scenario %s has no parameter %s", sc.Name, name))
}

// ns returns the duration parameter name of run r in nanoseconds.
func (sp suiteParams) ns(r RunName, name string) int64 {
	v := sp.param(r, name)
	ns, err := units.ParseDuration(v)
	if err != nil {
		panic(fmt.Sprintf("report: run %s: %s=%s: %v", r, name, v, err))
	}
	return ns
}

// dur returns the duration parameter name of run r as text.
func (sp suiteParams) dur(r RunName, name string) string { return seconds(sp.ns(r, name)) }

// seconds renders a duration as the reviews write it: "5 s", "600 s",
// "2,000 s".
func seconds(ns int64) string { return thousands(float64(ns)/1e9) + " s" }

// thousands renders v with no decimals (one for values under 10 that are
// not whole) and comma thousands separators.
func thousands(v float64) string {
	if v < 10 && v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
