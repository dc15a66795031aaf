package workload

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// optionExamples are a value for each option Set takes that sets a
// field, other than the field's default.
var optionExamples = map[string]string{
	"rw": "randwrite:8", "rwmixread": "70", "rwmixwrite": "30", "random_distribution": "zipf:1.1",
	"random_sequence_stride": "1", "percentage_random": "50", "randseed": "7", "randrepeat": "0",
	"norandommap": "1", "random_generator": "lfsr", "num_range": "4", "sprandom": "1", "spr_op": "0.3",
	"spr_num_regions": "10", "spr_cs": "1m", "bs": "8k", "bsrange": "4k-16k", "bssplit": "4k/50:8k/50",
	"blockalign": "8k", "size": "50%", "offset": "1m", "io_size": "2m", "offset_increment": "1m",
	"fill_device": "1", "nrfiles": "4", "filesize": "1m", "file_service_type": "random", "zonemode": "strided",
	"zonesize": "1m", "zonerange": "2m", "zoneskip": "4k",
	"read_beyond_wp": "1", "zonecapacity": "128m", "max_open_zones": "8", "job_max_open_zones": "2", "ignore_zone_limits": "1", "flow": "8", "flow_id": "2",
	"zone_reset_threshold": "0.7", "zone_reset_frequency": "0.125", "dataplacement": "fdp", "fdp": "1", "plids": "0,2-3",
	"plid_select": "random", "dp_scheme": "scheme.txt", "runtime": "10s", "time_based": "1",
	"ramp_time": "1s", "startdelay": "2s", "number_ios": "100", "loops": "3", "iodepth": "32",
	"rate_iops": "1000", "rate": "10m", "rate_process": "poisson", "rate_min": "1m", "rate_iops_min": "10",
	"ratecycle": "500", "thinktime": "100", "thinktime_blocks": "4", "fsync": "8", "fdatasync": "8",
	"sync": "1", "end_fsync": "1", "writefua": "1", "readfua": "1", "power_loss": "10s",
	"buffer_compress_percentage": "50", "buffer_compress_chunk": "4k", "dedupe_percentage": "20",
	"buffer_pattern": "0xdeadbeef", "data": "zeros", "verify": "crc32c", "verify_write_sequence": "0",
	"do_verify": "0", "percentile_list": "99:99.9", "clat_percentiles": "0", "lat_percentiles": "1",
	"write_iops_log": "run", "write_bw_log": "run", "write_lat_log": "run", "write_hist_log": "run", "log_avg_msec": "1000", "log_hist_msec": "500", "log_offset": "1",
	"steadystate": "iops:2%", "steadystate_duration": "30s", "steadystate_ramp_time": "5s",
	"steadystate_check_interval": "2s", "name": "x", "exitall": "1",
}

// field returns the value at dotted path p of j, printed.
func field(t *testing.T, j *Job, p string) string {
	v := reflect.ValueOf(j).Elem()
	for _, f := range strings.Split(p, ".") {
		v = v.FieldByName(f)
		require.True(t, v.IsValid(), "Job has no field %s", p)
	}
	return fmt.Sprintf("%+v", v)
}

// TestOptionTable: every option Set takes names the Job field it sets,
// and setting it to an example value changes that field.
func TestOptionTable(t *testing.T) {
	for _, o := range OptionTable() {
		switch {
		case o.Support != Honoured:
			assert.NotEmpty(t, o.Reason, "%s: a %s option says why", o.Name, o.Support)
			assert.Empty(t, o.Field, o.Name)
			continue
		case o.JobFile:
			assert.Empty(t, o.Field, "%s: the job file applies it, not Set", o.Name)
			continue
		}
		assert.NotEmpty(t, o.Help, o.Name)
		setters := 0
		for _, s := range []bool{o.set != nil, o.intField != nil, o.boolField != nil} {
			if s {
				setters++
			}
		}
		require.Equal(t, 1, setters, "%s: one setter", o.Name)
		if o.intField != nil {
			assert.Equal(t, KindInt, o.Kind, o.Name)
			assert.Less(t, o.Min, o.Max, o.Name)
		}
		if o.Field == "" {
			_, ok := optionExamples[o.Name]
			assert.False(t, ok, "%s sets no field", o.Name)
			continue
		}
		ex, ok := optionExamples[o.Name]
		require.True(t, ok, "%s: give an example value", o.Name)
		j := NewJob("t")
		before := field(t, j, o.Field)
		require.NoError(t, j.Set(o.Name, ex), o.Name)
		assert.NotEqual(t, before, field(t, j, o.Field), "%s=%s changes %s", o.Name, ex, o.Field)
		assert.True(t, j.IsSet(o.Name), o.Name)
		for _, a := range o.Aliases {
			k := NewJob("t")
			require.NoError(t, k.Set(a, ex), a)
			assert.Equal(t, field(t, j, o.Field), field(t, k, o.Field), "%s is %s", a, o.Name)
			assert.Equal(t, "same as "+o.Name, OptionHelp(a))
		}
	}
}

// TestOptionsDerived: Options, IsFlag and IsHostOnly read the table.
func TestOptionsDerived(t *testing.T) {
	names := Options()
	assert.Contains(t, names, "iodepth")
	assert.Contains(t, names, "readwrite", "aliases too")
	assert.Contains(t, names, "ratemin")
	assert.NotContains(t, names, "ioengine", "not applied")
	assert.NotContains(t, names, "numjobs", "the job file's")
	assert.NotContains(t, names, "read_iolog", "refused")
	assert.True(t, IsFlag("time_based"))
	assert.False(t, IsFlag("end_fsync"), "a 0/1 option takes its value on a command line")
	assert.True(t, IsHostOnly("IOENGINE"))
	assert.True(t, IsHostOnly("xnvme_async"), "a family of engine options")
	assert.False(t, IsHostOnly("iodepth"))
	assert.True(t, IsWorkloadOnly("bs") && IsWorkloadOnly("blocksize") && IsWorkloadOnly("numjobs"))
	assert.False(t, IsWorkloadOnly("size") || IsWorkloadOnly("verify") || IsWorkloadOnly("power_loss"))
	o, ok := LookupOption("ss_dur")
	require.True(t, ok)
	assert.Equal(t, "steadystate_duration", o.Name)
}

// TestSetRefusesWithAReason: fio's options that ftlsim does not model,
// or that belong to the host or the job file, are errors that say so;
// an unknown name is answered with the closest known ones.
func TestSetRefusesWithAReason(t *testing.T) {
	j := NewJob("t")
	for _, c := range []struct{ name, want string }{
		{"read_iolog", "read_iolog=x: ftlsim replays traces with its replay command"},
		{"ioengine", "ioengine=x: not applied to a simulated drive"},
		{"numjobs", "numjobs=x: an option of a job file"},
		{"iodepht", "unknown option iodepht (did you mean iodepth?)"},
		{"qqqqqqq", "unknown option qqqqqqq (ftlsim --help lists the job options)"},
	} {
		err := j.Set(c.name, "x")
		require.ErrorIs(t, err, ErrOption, c.name)
		assert.ErrorContains(t, err, c.want)
	}
}
