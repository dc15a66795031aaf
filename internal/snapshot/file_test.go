package snapshot

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFile(t testing.TB, compression string, root any) []byte {
	t.Helper()
	var b bytes.Buffer
	h := Header{Program: "test", Drive: "d", DriveKey: "k", Precondition: "fill", PrepNs: 5, Compression: compression}
	n, err := Write(&b, h, func(w io.Writer) (int64, error) { return Encode(w, root) })
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), n)
	return b.Bytes()
}

func TestFileRoundTrip(t *testing.T) {
	for _, c := range []string{None, Flate} {
		t.Run(c, func(t *testing.T) {
			b := writeFile(t, c, saved())
			f, err := Open(bytes.NewReader(b), int64(len(b)))
			require.NoError(t, err)
			require.Equal(t, Header{Program: "test", Drive: "d", DriveKey: "k", Precondition: "fill", PrepNs: 5, Compression: c}, f.Header)
			dst := fresh()
			require.NoError(t, f.Restore(dst))
			require.Equal(t, saved().Big, dst.Big)
			require.Same(t, dst.A, dst.B)
			stored, raw := f.Size()
			require.Positive(t, stored)
			require.Equal(t, int64(len(encode(t, saved()))), raw)
		})
	}
}

func TestFileRefused(t *testing.T) {
	b := writeFile(t, None, saved())
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(b)) }
	cases := []struct {
		name string
		file []byte
		err  error
	}{
		{"empty", nil, ErrTruncated},
		{"part of the magic", b[:3], ErrTruncated},
		{"the prefix only", b[:16], ErrTruncated},
		{"cut short", b[:len(b)-1], ErrTruncated},
		{"cut in the payload", b[:len(b)/2], ErrTruncated},
		{"one byte more", append(bytes.Clone(b), 0), ErrTruncated},
		{"another magic", mod(func(b []byte) []byte { b[0] = 'X'; return b }), ErrNotSnapshot},
		{"another version", mod(func(b []byte) []byte { b[8] = 2; return b }), ErrVersion},
		{"a huge header", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 1<<20); return b }), ErrNotSnapshot},
		{"a byte of the header changed", mod(func(b []byte) []byte { b[20] ^= 1; return b }), ErrChecksum},
		{"a byte of the payload changed", mod(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }), ErrChecksum},
		{"the checksum changed", mod(func(b []byte) []byte { b[len(b)-10] ^= 1; return b }), ErrChecksum},
		{"the stored length changed", mod(func(b []byte) []byte { b[len(b)-28] ^= 1; return b }), ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(bytes.NewReader(c.file), int64(len(c.file)))
			require.ErrorIs(t, err, c.err)
		})
	}
}

// FuzzLoadState reads arbitrary files as snapshots: Open and Restore
// refuse what is not one, never panic, and never allocate beyond what the
// file's length allows.
func FuzzLoadState(f *testing.F) {
	f.Add(writeFile(f, None, saved()))
	f.Add(writeFile(f, Flate, saved()))
	f.Add(writeFile(f, None, &graph{}))
	f.Add([]byte("FTLSIMSS"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sf, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		_ = sf.Restore(fresh())
	})
}
