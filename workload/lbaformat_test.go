package workload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLBAFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want LBAFormat
		err  string
	}{
		{"512", LBAFormat{}, ""},
		{"4096", LBAFormat{Data: 4096}, ""},
		{"4096+64", LBAFormat{Data: 4096, Meta: 64}, ""},
		{"512+8", LBAFormat{Data: 512, Meta: 8}, ""},
		{"4096+128", LBAFormat{Data: 4096, Meta: 128}, ""},
		{"1024+8", LBAFormat{}, "the data size is 512 or 4096 bytes"},
		{"4096+32", LBAFormat{}, "the metadata size is 8, 16, 64 or 128 bytes"},
		{"4096+", LBAFormat{}, "the metadata size"},
		{"x", LBAFormat{}, "the data size"},
	} {
		got, err := ParseLBAFormat(c.in)
		if c.err != "" {
			require.ErrorIs(t, err, ErrOption, c.in)
			require.ErrorContains(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}

// TestExtendedFormatOf checks which block sizes name an extended LBA
// format: all of them whole blocks of 4096 data bytes and one metadata
// size, none a multiple of 512.
func TestExtendedFormatOf(t *testing.T) {
	for _, c := range []struct {
		bs   string
		want string // "" for none
	}{
		{"4160", "4096+64"},  // fio's uring-cmd-pi-ext.fio
		{"4104", "4096+8"},   // 8 bytes of protection information
		{"8320", "4096+64"},  // two blocks
		{"4224", "4096+128"}, // 128 bytes of metadata
		{"4160,8320", "4096+64"},
		{"4096", ""},      // a plain block
		{"4160,4096", ""}, // the write is a plain one
		{"520", ""},       // one 512+8 block: not of 4096-byte data
		{"4168", ""},      // no metadata size fits
	} {
		j := NewJob("x")
		require.NoError(t, j.Set("bs", c.bs), c.bs)
		f, ok := ExtendedFormatOf(j)
		if c.want == "" {
			require.False(t, ok, c.bs)
			continue
		}
		require.True(t, ok, c.bs)
		require.Equal(t, c.want, f.String(), c.bs)
	}
}

// TestResolveExtendedLBA checks a job on a namespace formatted 4096+64:
// its sizes count 4160 bytes a block, as fio's (size=1g of bs=4160 is
// 258,111 whole blocks), over a namespace of the drive's blocks, and
// block sizes or offsets off the block are refused naming it.
func TestResolveExtendedLBA(t *testing.T) {
	f := LBAFormat{Data: 4096, Meta: 64}
	j := NewJob("pi")
	require.NoError(t, j.Set("bs", "4160"))
	require.NoError(t, j.Set("size", "1g"))
	j.LBA = f
	require.NoError(t, j.Resolve(4<<30))
	require.Equal(t, int64(258111*4160), j.Size)
	require.Equal(t, int64(258111*4096), f.DeviceBytes(j.Size))

	j = NewJob("whole")
	require.NoError(t, j.Set("bs", "4160"))
	j.LBA = f
	require.NoError(t, j.Resolve(4<<30))
	require.Equal(t, int64(4<<30)/4096*4160, j.Size, "the whole namespace: every block with its metadata")

	j = NewJob("plain")
	require.NoError(t, j.Set("bs", "4k"))
	j.LBA = f
	require.ErrorContains(t, j.Resolve(4<<30), "bs=4096: block sizes must be positive multiples of the 4160-byte extended LBA (lba_format=4096+64)")

	j = NewJob("offset")
	require.NoError(t, j.Set("bs", "4160"))
	require.NoError(t, j.Set("offset", "4096"))
	j.LBA = f
	require.ErrorContains(t, j.Resolve(4<<30), "offset=4096: must be a multiple of 4160")

	j = NewJob("4kn")
	require.NoError(t, j.Set("bs", "2k"))
	j.LBA = LBAFormat{Data: 4096}
	require.ErrorContains(t, j.Resolve(4<<30), "bs=2048: block sizes must be positive multiples of the 4096-byte LBA (lba_format=4096)")

	j = NewJob("unformatted")
	require.NoError(t, j.Set("bs", "4160"))
	require.ErrorContains(t, j.Resolve(4<<30), "4160 bytes is an extended LBA's (lba_format=4096+64")
}

// FuzzParseLBAFormat checks that any text is either refused as a bad
// option or read as a format that prints back as itself (DATA+META, or
// "512" for a plain one).
func FuzzParseLBAFormat(f *testing.F) {
	for _, s := range []string{"512", "4096", "4096+64", "512+8", "4096+7", "+", "4096+64+8", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseLBAFormat(s)
		if err != nil {
			require.ErrorIs(t, err, ErrOption)
			return
		}
		again, err := ParseLBAFormat(got.String())
		require.NoError(t, err)
		require.Equal(t, got, again)
		require.Equal(t, max(got.Data, 512)+got.Meta, got.Block())
	})
}
