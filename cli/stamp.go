package cli

import (
	"io"
	"os"
	"strconv"
	"time"

	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// reportTime is the time a fio JSON report is stamped with, as fio stamps
// its own with the time it writes them: now, or SOURCE_DATE_EPOCH (seconds
// since the Unix epoch, the reproducible-builds convention) when that is
// set, so that byte-identical reports can be asked for.
func reportTime() time.Time {
	if s, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Now()
}

// writeReport writes the fio JSON report of jobs, stamped (reportTime).
func writeReport(w io.Writer, global map[string]string, jobs ...fioreport.Job) error {
	rep := fioreport.NewReport(global, jobs...)
	rep.Stamp(reportTime())
	return rep.Write(w)
}
