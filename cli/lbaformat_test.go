package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExtendedLBAJob runs a job file shaped as fio's uring-cmd-pi-ext.fio
// (bs=4160 on a namespace formatted with 64 bytes of metadata a 4 KiB
// block) and checks the bytes on each side: the host moves 4160 a block
// (fio's io_bytes), the drive stores 4096 (its host_write_bytes), every
// block verifies; the format is the one the block size names, or the
// one --lba_format gives, which a block size off it is refused against.
func TestExtendedLBAJob(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "pi.fio")
	require.NoError(t, os.WriteFile(f, []byte("[global]\nfilename=/dev/ng0n1\nsize=64m\nbs=4160\niodepth=8\n[write]\nrw=randwrite\nverify=crc32c\n"), 0o644))
	run := func(extra ...string) (int, string, []byte) {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"run", f, "--drive=generic-mlc-small", "--capacity=4GiB", "--output-format=json"}, extra...), &out, &errOut)
		return code, errOut.String(), out.Bytes()
	}
	code, stderr, out := run()
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "the extended LBA format 4096+64")
	var doc struct {
		Jobs []struct {
			Write struct {
				Bytes int64 `json:"io_bytes"`
				IOs   int64 `json:"total_ios"`
			} `json:"write"`
			Device struct {
				HostWriteBytes int64 `json:"host_write_bytes"`
			} `json:"device"`
			Verify struct {
				Bytes      int64 `json:"bytes"`
				Mismatches int64 `json:"mismatches"`
			} `json:"verify"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	blocks := int64(64<<20) / 4160
	w := doc.Jobs[0]
	require.Equal(t, blocks, w.Write.IOs)
	require.Equal(t, blocks*4160, w.Write.Bytes)
	require.Equal(t, blocks*4096, w.Device.HostWriteBytes)
	require.Positive(t, w.Verify.Bytes)
	require.Zero(t, w.Verify.Mismatches)

	code, stderr, _ = run("--lba_format=4096+8")
	require.Equal(t, exitUsage, code, stderr)
	require.Contains(t, stderr, "bs=4160: block sizes must be positive multiples of the 4104-byte extended LBA (lba_format=4096+8)")

	code, stderr, _ = run("--lba_format=4096+32")
	require.Equal(t, exitUsage, code, stderr)
	require.Contains(t, stderr, "the metadata size is 8, 16, 64 or 128 bytes")
}
