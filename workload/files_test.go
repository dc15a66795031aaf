package workload

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayOutFiles lays out the files of job files shaped as fio's
// examples are (each case names the example it follows) on a 1 GiB drive
// and checks each job's region: the jobs fio gives a file each get
// disjoint regions, the jobs naming one file share it, and jobs on a
// device keep the whole drive.
func TestLayOutFiles(t *testing.T) {
	const mib = 1 << 20
	type region struct {
		base, len int64
		file      string
	}
	cases := []struct {
		name, file string
		want       []region // per job, in the file's order
		shared     []bool   // per job: it shares its file with another writer of its group
		err        string
	}{
		{name: "per-job default names in a directory (libcufile-posix.fio, libhipfile-posix.fio)",
			file:   "[global]\ndirectory=\nsize=1m\nnumjobs=2\n[write]\nrw=write\n[verify]\nrw=randwrite\nverify=md5\n",
			want:   []region{{0, mib, "write.0.0"}, {mib, mib, "write.1.0"}, {2 * mib, mib, "verify.0.0"}, {3 * mib, mib, "verify.1.0"}},
			shared: []bool{false, false, false, false}},
		{name: "filename_format with $jobnum: one object per clone (http-webdav.fio)",
			file:   "[global]\nfilename_format=/dav/bucket.$jobnum\nsize=1m\n[create]\nnumjobs=2\nrw=randwrite\nverify=sha256\n[trim]\nstonewall\nnumjobs=2\nrw=trim\n",
			want:   []region{{0, mib, "/dav/bucket.0"}, {mib, mib, "/dav/bucket.1"}, {0, mib, "/dav/bucket.0"}, {mib, mib, "/dav/bucket.1"}},
			shared: []bool{false, false, false, false}},
		{name: "one named file in a directory, shared by clones (e4defrag.fio)",
			file:   "[global]\ndirectory=/scratch\nfilesize=4m\nsize=4m\n[defrag]\nioengine=e4defrag\nfilename=file1\nrw=write\n[aio]\nfilename=file1\nrw=randrw\nverify=md5\nnumjobs=2\n",
			want:   []region{{0, 4 * mib, "/scratch/file1"}, {0, 4 * mib, "/scratch/file1"}, {0, 4 * mib, "/scratch/file1"}},
			shared: []bool{true, true, true}},
		{name: "nrfiles=1 own files, then a shared one (e4defrag2.fio)",
			file:   "[global]\ndirectory=/scratch\nnrfiles=1\nfilesize=2m\n[par]\nrw=write\nnumjobs=2\n[fuzz]\nstonewall\nfilename=file3\nrw=randwrite\n",
			want:   []region{{0, 2 * mib, "/scratch/par.0.0"}, {2 * mib, 2 * mib, "/scratch/par.1.0"}, {4 * mib, 2 * mib, "/scratch/file3"}},
			shared: []bool{false, false, false}},
		{name: "a device: the whole drive (fio-rand-write on /dev/nvme0n1)",
			file: "[a]\nfilename=/dev/nvme0n1\nrw=randwrite\nnumjobs=2\nsize=1m\n",
			want: []region{{0, 0, ""}, {0, 0, ""}}, shared: []bool{false, false}},
		{name: "no file options: the drive, ftlsim's convention",
			file: "[a]\nrw=randwrite\nsize=1m\n", want: []region{{0, 0, ""}}, shared: []bool{false}},
		{name: "an empty filename (an unset ${DEV}) is not given",
			file: "[a]\nfilename=\nrw=write\n", want: []region{{0, 0, ""}}, shared: []bool{false}},
		{name: "files no job sizes share the space the others leave",
			file:   "[a]\nfilename=x\nsize=512m\nrw=write\n[b]\nfilename=y\nrw=write\n[c]\nfilename=z\nrw=write\n",
			want:   []region{{0, 512 * mib, "x"}, {512 * mib, 256 * mib, "y"}, {768 * mib, 256 * mib, "z"}},
			shared: []bool{false, false, false}},
		{name: "a file takes the largest extent its jobs reach",
			file: "[a]\nfilename=x\nsize=1m\nrw=write\n[b]\nfilename=x\noffset=1m\nsize=2m\nrw=read\n",
			want: []region{{0, 3 * mib, "x"}, {0, 3 * mib, "x"}}, shared: []bool{false, false}},
		{name: "files larger than the drive fail as fio's layout does (dfs.fio on a small drive)",
			file: "[a]\nfilename_format=f.$jobnum\nsize=600m\nnumjobs=2\nrw=write\n", err: "ENOSPC"},
		{name: "jobs sharing some of their files but not all",
			file: "[a]\nfilename=x:y\nsize=2m\nrw=write\n[b]\nfilename=y\nrw=write\n", err: "share all their files or none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jf, err := ParseJobFile("t.fio", strings.NewReader(c.file))
			require.NoError(t, err)
			err = jf.LayOutFiles(1 << 30)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, jf.Jobs, len(c.want))
			for i, fj := range jf.Jobs {
				r := fj.Job.FileSet.Region
				require.Equal(t, c.want[i], region{r.Base, r.Len, r.File}, "job %s", fj.Job.Name)
				require.Equal(t, c.shared[i], fj.Job.FileSet.Shared != "", "job %s shares with %q", fj.Job.Name, fj.Job.FileSet.Shared)
				require.NoError(t, fj.Job.Resolve(1<<30), fj.Job.Name)
				if r.Len > 0 {
					require.GreaterOrEqual(t, fj.Job.Offset, r.Base, fj.Job.Name)
					require.LessOrEqual(t, fj.Job.Offset+fj.Job.Size, r.Base+r.Len, fj.Job.Name)
				}
			}
		})
	}
}

// TestFileRegionBounds checks that a job's offset counts from the start
// of its file and that one reaching past the file's end is refused naming
// the file.
func TestFileRegionBounds(t *testing.T) {
	jf, err := ParseJobFile("t.fio", strings.NewReader("[a]\nfilename=x\nsize=4m\nrw=write\n[b]\nfilename=y\nsize=4m\noffset=1m\nrw=write\n"))
	require.NoError(t, err)
	require.NoError(t, jf.LayOutFiles(1<<30))
	b := jf.Jobs[1].Job
	require.NoError(t, b.Resolve(1<<30))
	require.Equal(t, int64(5<<20), b.Offset, "y starts after x's 4 MiB; offset=1m is within y")
	require.Equal(t, int64(4<<20), b.Size)

	c := *jf.Jobs[0].Job
	require.NoError(t, c.Set("size", "8m"))
	err = c.Resolve(1 << 30)
	require.ErrorContains(t, err, "the 4194304 bytes of file x")
}

// TestLayOutNamespaces: on a drive of several namespaces a job naming an
// NVMe namespace runs on it, every other job on namespace 1 (its files
// laid out there), percentages are of the namespace, and a namespace the
// drive lacks is refused; on a drive of one, every device is the drive.
func TestLayOutNamespaces(t *testing.T) {
	const gib = 1 << 30
	ns := []Region{{Base: 0, Len: gib, File: "namespace 1"}, {Base: gib, Len: gib, File: "namespace 2"}}
	jf, err := ParseJobFile("t.fio", strings.NewReader("[a]\nfilename=/dev/nvme0n2\nrw=write\nsize=50%\n[b]\nfilename=/dev/ng0n1\nrw=write\n[c]\nfilename=f\nsize=4m\nrw=write\n[d]\nrw=read\n"))
	require.NoError(t, err)
	require.NoError(t, jf.LayOutNamespaces(2*gib, ns))
	want := []struct {
		ns        int
		off, size int64
	}{{2, gib, gib / 2}, {1, 0, gib}, {1, 0, 4 << 20}, {1, 0, gib}}
	for i, fj := range jf.Jobs {
		require.NoError(t, fj.Job.Resolve(2*gib), fj.Job.Name)
		require.Equal(t, want[i].ns, fj.Job.FileSet.Namespace, fj.Job.Name)
		require.Equal(t, want[i].off, fj.Job.Offset, fj.Job.Name)
		require.Equal(t, want[i].size, fj.Job.Size, fj.Job.Name)
	}
	bad, err := ParseJobFile("t.fio", strings.NewReader("[a]\nfilename=/dev/nvme0n3\nrw=write\n"))
	require.NoError(t, err)
	require.ErrorContains(t, bad.LayOutNamespaces(2*gib, ns), "namespaces 1..2")
	require.NoError(t, bad.LayOutNamespaces(2*gib, ns[:1]), "one namespace: every device is the drive")
	require.Equal(t, 0, bad.Jobs[0].Job.FileSet.Namespace)

	for name, n := range map[string]int{"/dev/nvme0n2": 2, "/dev/ng1n12": 12, "/dev/sda": 0, "/dev/nvme0": 0, "/dev/nvme0n1p1": 0} {
		require.Equal(t, n, namespaceOf(name), name)
	}
}
