package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sample = `; a comment
# another
[global]
ioengine=libaio
direct=1
bs=8k
runtime=10
time_based

[a]
rw=randread
iodepth=16

[b]
rw=randwrite
numjobs=2

[c]
stonewall
rw=write
bs=128k

[global]
iodepth=4

[d]
rw=read
`

func TestParseJobFile(t *testing.T) {
	jf, err := ParseJobFile("s.fio", strings.NewReader(sample))
	require.NoError(t, err)
	require.Equal(t, []string{"ioengine", "direct"}, jf.Ignored)
	var names []string
	var groups []int
	for _, j := range jf.Jobs {
		names = append(names, j.Job.Name)
		groups = append(groups, j.Group)
	}
	require.Equal(t, []string{"a", "b.0", "b.1", "c", "d"}, names)
	// d has no stonewall: it runs with c.
	require.Equal(t, []int{0, 0, 0, 1, 1}, groups)
	require.Len(t, jf.Groups(), 2)
	a, b0, b1, c, d := jf.Jobs[0].Job, jf.Jobs[1].Job, jf.Jobs[2].Job, jf.Jobs[3].Job, jf.Jobs[4].Job
	require.Equal(t, int64(8192), a.BS[0].Bytes, "global bs applies")
	require.True(t, a.TimeBased)
	require.Equal(t, int64(10e9), a.RuntimeNs)
	require.Equal(t, 16, a.IODepth)
	require.Equal(t, 1, b0.IODepth)
	require.NotEqual(t, b0.RandSeed, b1.RandSeed, "clones draw different offsets")
	require.Equal(t, int64(128<<10), c.BS[0].Bytes)
	require.Equal(t, 4, d.IODepth, "a later [global] applies to the jobs after it")
	require.Equal(t, 1, c.IODepth)
	require.Equal(t, "randread", jf.Jobs[0].Options["rw"])
	require.Equal(t, "8k", jf.Jobs[0].Options["bs"])
}

func TestJobFileErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"[a]\nrw=sideways\n", "e.fio:2: invalid job option: rw=sideways"},
		{"[a]\nzonemode=zns\n", `e.fio:2: invalid job option: zonemode=zns: "zns": allowed none, strided, zbd`},
		{"[a]\nfdp=1\nfdp_pli=0,4-2\n", `e.fio:3: invalid job option: plids=0,4-2: "4-2": want indices and ranges such as 0,2-4`},
		{"[a]\nzone_reset_threshold=1.5\n", `e.fio:2: invalid job option: zone_reset_threshold=1.5: "1.5": must be a number in [0, 1]`},
		{"[a]\nkb_base=1000\n", `e.fio:2: invalid job option: kb_base=1000: ftlsim reads sizes as fio's default kb_base=1024 does`},
		{"[a]\nread_iolog=x.log\n", `e.fio:2: invalid job option: read_iolog=x.log: ftlsim replays traces with its replay command`},
		{"[a]\niodepht=4\n", `e.fio:2: unknown option iodepht (did you mean iodepth?)`},
		{"rw=read\n", "e.fio:1: invalid job option: option \"rw=read\" before any [section]"},
		{"[a\n", "e.fio:1: invalid job option: malformed section header"},
		{"[global]\nbs=4k\n", "no job sections"},
		{"[a]\nnumjobs=0\n", "e.fio:2: invalid job option: numjobs=0"},
		{"[global]\nbs=4q\n[a]\n", "e.fio:2: invalid job option: bs=4q"},
		// A line over maxJobFileLine, the third: named, not bufio's "token too long".
		{"[a]\nrw=read\nname=" + strings.Repeat("x", maxJobFileLine) + "\n", "e.fio:3: invalid job option: line too long, allowed at most 1048576 bytes"},
	}
	for _, c := range cases {
		_, err := ParseJobFile("e.fio", strings.NewReader(c.text))
		require.ErrorIs(t, err, ErrOption, c.text)
		require.ErrorContains(t, err, c.want)
	}
}

// A line of maxJobFileLine bytes, newline included, is read.
func TestJobFileLongestLine(t *testing.T) {
	line := "name=" + strings.Repeat("x", maxJobFileLine-len("name=")-1) + "\n"
	jf, err := ParseJobFile("l.fio", strings.NewReader("[a]\n"+line+"rw=read\n"))
	require.NoError(t, err)
	require.Len(t, jf.Jobs, 1)
}

func FuzzParseJobFile(f *testing.F) {
	f.Add(sample)
	f.Add("[x]\nrw=randrw\nbssplit=4k/50:8k/50\nrandom_distribution=zipf:0.8\n")
	f.Fuzz(func(t *testing.T, text string) {
		jf, err := ParseJobFile("f.fio", strings.NewReader(text))
		if err != nil {
			return
		}
		for _, j := range jf.Jobs {
			if j.Job == nil || j.Group < 0 || j.Group >= len(jf.Jobs) {
				t.Fatalf("bad job %+v", j)
			}
			_ = j.Job.Resolve(1 << 30)
		}
	})
}

// TestJobFileCommentsAndEnvironment: as fio, a line ends at its first ;
// or #, and ${VAR} takes the environment's value (empty when unset).
func TestJobFileCommentsAndEnvironment(t *testing.T) {
	env := map[string]string{"RW": "randwrite", "BS": "16k"}
	jf, err := ParseJobFileEnv("env.fio", strings.NewReader(`[a]
rw=${RW} ; the pattern from the environment
bs=${BS}# no space needed
size=1m${UNSET}
iodepth=4   # trailing spaces and a comment
`), func(k string) string { return env[k] })
	require.NoError(t, err)
	j := jf.Jobs[0].Job
	require.Equal(t, RandWrite, j.Pattern)
	require.Equal(t, int64(16<<10), j.BS[0].Bytes)
	require.Equal(t, 4, j.IODepth)
	require.NoError(t, j.Resolve(1<<30))
	require.Equal(t, int64(1<<20), j.Size)
	got, unset, _ := expandEnv("a${b", func(string) (string, bool) { return "x", true })
	require.Equal(t, "a${b", got, "an unclosed ${ stays")
	require.Empty(t, unset)
}

// TestJobFileReportsEngineOptions: engine and host options are accepted
// and listed as not applied, never dropped silently.
func TestJobFileReportsEngineOptions(t *testing.T) {
	jf, err := ParseJobFile("engine.fio", strings.NewReader("[a]\nioengine=sg\ncmd_type=nvme\nhostname=server\nrw=read\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"ioengine", "cmd_type", "hostname"}, jf.Ignored)
}

// TestJobFileWaitForAndOffsetIncrement: wait_for starts a job in a group
// after the named job's (an unknown name is an error naming the line);
// offset_increment moves each numjobs clone's range further.
func TestJobFileWaitForAndOffsetIncrement(t *testing.T) {
	jf, err := ParseJobFile("w.fio", strings.NewReader(`[global]
size=1m
[writers]
rw=write
numjobs=2
offset_increment=1m
[other]
rw=read
[readers]
wait_for=writers
rw=randread
`))
	require.NoError(t, err)
	var groups []int
	for _, j := range jf.Jobs {
		groups = append(groups, j.Group)
	}
	require.Equal(t, []int{0, 0, 0, 1}, groups, "readers wait for the writers' group")
	for k, j := range jf.Jobs[:2] {
		require.NoError(t, j.Job.Resolve(1<<30))
		require.Equal(t, int64(k)<<20, j.Job.Offset, "clone %d", k)
	}
	_, err = ParseJobFile("w.fio", strings.NewReader("[a]\nwait_for=nobody\n"))
	require.ErrorContains(t, err, "w.fio:2")
	require.ErrorContains(t, err, "wait_for=nobody")
}

// TestJobFileKeywordsAndArithmetic: fio's $pagesize, $mb_memory and
// $ncpus take the machine's values, a value holding them is computed in
// integers as bc would, and a value in ( ) is an expression with size
// suffixes.
func TestJobFileKeywordsAndArithmetic(t *testing.T) {
	host := HostFacts{PageSize: 4096, MBMemory: 8000, NCPUs: 6}
	jf, err := ParseJobFileWith("k.fio", strings.NewReader(`[a]
size=5*1024*1024*$mb_memory/8 # 5/8 of the memory
bs=$pagesize
numjobs=$ncpus
offset=(1m+64k*2)
`), ParseOptions{Host: host})
	require.NoError(t, err)
	require.Len(t, jf.Jobs, int(host.NCPUs))
	j := jf.Jobs[0].Job
	require.NoError(t, j.Resolve(1<<40))
	require.Equal(t, 5*1024*1024*host.MBMemory/8, j.Size)
	require.Equal(t, host.PageSize, j.BS[0].Bytes)
	require.Equal(t, int64(1<<20+2*64<<10), j.Offset)

	_, err = ParseJobFileWith("k.fio", strings.NewReader("[a]\nsize=$mb_memory*1m\n"), ParseOptions{})
	require.ErrorContains(t, err, "k.fio:2")
	require.ErrorContains(t, err, "$mb_memory")

	for _, c := range []struct {
		in   string
		want int64
	}{
		{"2+3*4", 14}, {"(2+3)*4", 20}, {"7/2", 3}, {"-7/2", -3}, {"7%4", 3}, {"2^10", 1024}, {"2^3^2", 512}, {"--3", 3},
	} {
		got, err := evalExpr(c.in, false)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "1+", "(1", "1/0", "2^-1", "9223372036854775807*2", "1k", "1 2"} {
		_, err := evalExpr(bad, false)
		require.ErrorIs(t, err, errExpr, bad)
	}
	got, err := evalExpr("(4k*3 + 1m)", true)
	require.NoError(t, err)
	require.Equal(t, int64(12<<10+1<<20), got)
	_, err = evalExpr("(10s)", true)
	require.ErrorContains(t, err, "time suffixes")
}

// TestJobFileSectionsAndDefaults: --section runs only the named job
// sections (an unknown one is an error listing those there are), and
// command-line options apply before the file's own, which override them.
func TestJobFileSectionsAndDefaults(t *testing.T) {
	text := "[global]\nbs=4k\n[default]\n[override]\nrw=${FIO_RW}\n"
	jf, err := ParseJobFileWith("s.fio", strings.NewReader(text), ParseOptions{
		Sections: []string{"default"}, Defaults: [][2]string{{"rw", "randread"}, {"bs", "64k"}, {"ioengine", "xnvme"}}})
	require.NoError(t, err)
	require.Len(t, jf.Jobs, 1)
	require.Equal(t, RandRead, jf.Jobs[0].Job.Pattern, "from the command line")
	require.Equal(t, int64(4096), jf.Jobs[0].Job.BS[0].Bytes, "the file's global overrides the command line")
	require.Equal(t, []string{"ioengine"}, jf.Ignored)
	_, err = ParseJobFileWith("s.fio", strings.NewReader(text), ParseOptions{Sections: []string{"nope"}})
	require.ErrorContains(t, err, "--section=nope")
	require.ErrorContains(t, err, "default, override")
	_, err = ParseJobFileWith("s.fio", strings.NewReader(text), ParseOptions{})
	require.ErrorContains(t, err, "s.fio:5", "the override section's empty rw")
}

// TestJobFileUnsetVariable: a value that an unset (or empty) ${VAR}
// leaves invalid is an error naming the variable, the file and the line,
// with the option as written; a valid one still reads as fio reads it.
func TestJobFileUnsetVariable(t *testing.T) {
	text := "[global]\nbs=4k\n[j]\nrw=randwrite\nruntime=${DUR}\n"
	env := map[string]string{"EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	_, err := ParseJobFileWith("env.fio", strings.NewReader(text), ParseOptions{LookupEnv: lookup})
	require.ErrorIs(t, err, ErrOption)
	require.ErrorContains(t, err, "env.fio:5: invalid job option: runtime=${DUR}: the environment variable ${DUR} is not set")

	_, err = ParseJobFileWith("env.fio", strings.NewReader(strings.Replace(text, "DUR", "EMPTY", 1)), ParseOptions{LookupEnv: lookup})
	require.ErrorContains(t, err, "env.fio:5: invalid job option: runtime=${EMPTY}: the environment variable ${EMPTY} is empty")

	// Getenv alone cannot tell unset from empty: "not set" covers both.
	_, err = ParseJobFileEnv("env.fio", strings.NewReader("[j]\nrw=${A}${B}\n"), func(string) string { return "" })
	require.ErrorContains(t, err, "env.fio:2: invalid job option: rw=${A}${B}: the environment variables ${A}, ${B} are not set")

	_, err = ParseJobFileEnv("env.fio", strings.NewReader("[j]\n${OPT}=4\n"), func(string) string { return "" })
	require.ErrorContains(t, err, "env.fio:2: unknown option")
	require.ErrorContains(t, err, "${OPT} is not set")

	_, err = ParseJobFileEnv("env.fio", strings.NewReader("[${S}]\n"), func(string) string { return "" })
	require.ErrorContains(t, err, "env.fio:1: invalid job option: malformed section header")
	require.ErrorContains(t, err, "${S} is not set")

	// Unset, but harmless: the file reads as before.
	jf, err := ParseJobFileEnv("env.fio", strings.NewReader("[j]\nsize=1m${UNSET}\n"), func(string) string { return "" })
	require.NoError(t, err)
	require.Len(t, jf.Jobs, 1)
}

// TestJobFileDescription: description= is kept with the job's options
// (its report's desc, as fio's), not reported as not applied.
func TestJobFileDescription(t *testing.T) {
	jf, err := ParseJobFile("d.fio", strings.NewReader("[global]\ndescription=the kit\n[a]\nrw=read\n[b]\ndescription=4k random writes\nrw=randwrite\n"))
	require.NoError(t, err)
	require.Empty(t, jf.Ignored)
	require.Equal(t, "the kit", jf.Jobs[0].Options["description"])
	require.Equal(t, "4k random writes", jf.Jobs[1].Options["description"])
}

// TestJobFileInclude: an include directive reads another file where it
// stands, as fio does — a relative path from the including file's
// directory, its options in the section it is in or sections of its
// own — and an error in it names the included file and its line; a file
// that includes itself, and include without a file system, are refused.
func TestJobFileInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	write("inc/common.fio", "bs=8k\nrw=randwrite\n")
	write("inc/more.fio", "[b]\nsize=1m\n")
	main := write("inc/main.fio", "[global]\ninclude common.fio\nsize=2m\n[a]\ninclude\tmore.fio\n")
	jf, err := ParseJobFileName(main)
	require.NoError(t, err)
	require.Len(t, jf.Jobs, 2)
	for _, fj := range jf.Jobs {
		require.Equal(t, int64(8192), fj.Job.BS[0].Bytes, fj.Job.Name)
	}

	write("bad/inner.fio", "bs=8k\nrw=sideways\n")
	bad := write("bad/main.fio", "[a]\nsize=1m\ninclude inner.fio\n")
	_, err = ParseJobFileName(bad)
	require.ErrorContains(t, err, filepath.Join(dir, "bad", "inner.fio")+":2:")

	loop := write("loop/main.fio", "[a]\ninclude main.fio\n")
	_, err = ParseJobFileName(loop)
	require.ErrorContains(t, err, "includes itself")

	_, err = ParseJobFileWith("x.fio", strings.NewReader("[a]\ninclude y.fio\n"), ParseOptions{})
	require.ErrorContains(t, err, "x.fio:2:")
}

// TestJobFileIncludeRefusesDevices: include of a device is refused, not
// read without end.
func TestJobFileIncludeRefusesDevices(t *testing.T) {
	_, err := ParseJobFile("d.fio", strings.NewReader("[a]\ninclude /dev/zero\n"))
	require.ErrorContains(t, err, "d.fio:2:")
	require.ErrorContains(t, err, "not a regular file")
}
