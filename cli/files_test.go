package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFilesVerifyApart runs job files shaped as the fio examples whose
// jobs fio gives a file each (their names say which) and checks that
// every verifying job finds its own writes: the files are regions of the
// drive of their own. The same jobs on the device (filename=/dev/…)
// overwrite each other, and verification says so: the check can fail.
func TestFilesVerifyApart(t *testing.T) {
	cases := []struct {
		name, file string
		mismatch   bool // expected on the shared device
	}{
		{"http-webdav: an object per clone (filename_format=bucket.$jobnum)",
			"[global]\nfilename_format=/dav/bucket.$jobnum\nbs=64k\nsize=1m\n[create]\nnumjobs=4\nrw=randwrite\nio_size=4m\nverify=sha256\n[trim]\nstonewall\nnumjobs=4\nrw=trim\nio_size=1m\n", true},
		{"libcufile-posix, libhipfile-posix: a file per clone in directory=",
			"[global]\ndirectory=\nbs=1m\nsize=16m\nnumjobs=4\n[write]\nrw=write\n[randverify]\nrw=randwrite\nverify=md5\n", true},
		{"e4defrag: the defragmenter's writes keep the data a verifying job wrote",
			"[global]\ndirectory=/scratch\nnrfiles=1\nfilesize=8m\nsize=8m\nbs=32k\n[fill]\nioengine=e4defrag\nfilename=file1\nrw=write\n[defrag]\nstonewall\nioengine=e4defrag\nfilename=file1\nrw=write\nloops=4\n[aio]\nioengine=libaio\nfilename=file1\nrw=randrw\nbs=64k\nverify=md5\niodepth=16\n", true},
		{"e4defrag2: own files for the defragmenters, a shared one for the fuzzer and verifier",
			"[global]\nioengine=e4defrag\ndirectory=/scratch\nnrfiles=1\nfilesize=8m\nsize=8m\nbs=32k\n[par]\nrw=write\nnumjobs=2\n[fuzz]\nstonewall\ninplace=1\nbs=4k\nrw=randwrite\nfilename=file3\n[aio]\nioengine=libaio\nverify=md5\nbs=32k\nfilename=file3\nrw=randrw\niodepth=16\n", true},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, device := range []bool{false, true} {
				text := c.file
				if device {
					// Every job on the drive itself: ioengine=e4defrag
					// aside, as before files had regions.
					text = "[global]\nfilename=/dev/nvme0n1\nioengine=psync\n" + stripFiles(text)
				}
				f := filepath.Join(dir, "job.fio")
				require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
				var out, errOut bytes.Buffer
				code := Main([]string{"run", f, "--drive=generic-mlc-small", "--capacity=4GiB", "--output-format=json"}, &out, &errOut)
				if device {
					if c.mismatch {
						require.Equal(t, exitError, code, "on the device the jobs overwrite each other: %s", errOut.String())
						require.Contains(t, errOut.String(), "verify failed")
					}
					continue
				}
				require.Equal(t, exitOK, code, errOut.String())
				var doc struct {
					Jobs []struct {
						Name   string `json:"jobname"`
						Verify *struct {
							Bytes      int64 `json:"bytes"`
							Mismatches int64 `json:"mismatches"`
						} `json:"verify"`
					} `json:"jobs"`
				}
				require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
				verified := 0
				for _, j := range doc.Jobs {
					if j.Verify != nil {
						verified++
						require.Positive(t, j.Verify.Bytes, j.Name)
						require.Zero(t, j.Verify.Mismatches, j.Name)
					}
				}
				require.Positive(t, verified, "a job verified")
			}
		})
	}
}

// stripFiles removes the lines naming files (and engines) from a job
// file, so that its jobs run on the [global] section's device.
func stripFiles(s string) string {
	var out []byte
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		for _, p := range []string{"filename", "directory", "nrfiles", "filesize", "ioengine"} {
			if bytes.HasPrefix(line, []byte(p)) {
				line = nil
				break
			}
		}
		if line != nil {
			out = append(append(out, line...), '\n')
		}
	}
	return string(out)
}
