package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LBAFormat is the logical block format of the namespace a job
// addresses, as NVMe's Format NVM sets it (the LBA format's data size,
// LBADS, and metadata size, MS): with metadata bytes that travel with
// each block's data in one buffer (FLBAS bit 4, "extended"), the host
// addresses Data+Meta bytes a block, and a job's offsets, sizes and
// block sizes count them, as fio's NVMe engines do on such a namespace
// (io_uring_cmd: the starting LBA is the offset over Data+Meta). Without
// metadata, a 4096-byte format takes I/O in whole 4 KiB blocks only. The
// zero value is the plain format of 512-byte sectors.
type LBAFormat struct {
	Data int64 // bytes of data a block (512 or 4096)
	Meta int64 // bytes of metadata a block, interleaved with its data
}

// Extended reports whether blocks carry interleaved metadata.
func (f LBAFormat) Extended() bool { return f.Meta > 0 }

// Block returns the bytes a block takes in the host's addresses: Data
// (512 for the zero value) and, on an extended format, Meta.
func (f LBAFormat) Block() int64 {
	return max(f.Data, 512) + f.Meta
}

// DeviceBytes converts a byte count or offset in the host's addresses
// (a multiple of Block) to the drive's data bytes.
func (f LBAFormat) DeviceBytes(host int64) int64 {
	if !f.Extended() {
		return host
	}
	return host / f.Block() * f.Data
}

// HostBytes converts the drive's data bytes (a multiple of Data) to the
// host's addresses: the data with its blocks' metadata.
func (f LBAFormat) HostBytes(dev int64) int64 {
	if !f.Extended() {
		return dev
	}
	return dev / f.Data * f.Block()
}

// String returns the format as ParseLBAFormat reads it: "4096+64",
// "4096", or "512" for the zero value.
func (f LBAFormat) String() string {
	if !f.Extended() {
		return strconv.FormatInt(max(f.Data, 512), 10)
	}
	return fmt.Sprintf("%d+%d", f.Data, f.Meta)
}

// metadataSizes are the metadata sizes of the LBA formats NVMe drives
// offer with protection information (8 bytes of PI, or 8 of PI in 16,
// 64 or 128 bytes of metadata).
var metadataSizes = []int64{8, 16, 64, 128}

// ParseLBAFormat reads an LBA format as DATA+META ("4096+64", "512+8")
// or DATA alone (no metadata): data 512 or 4096 bytes, metadata one of
// 8, 16, 64 and 128 bytes.
func ParseLBAFormat(s string) (LBAFormat, error) {
	d, m, ok := strings.Cut(s, "+")
	data, err := strconv.ParseInt(d, 10, 64)
	if err != nil || (data != 512 && data != 4096) {
		return LBAFormat{}, fmt.Errorf("%w: lba_format=%s: the data size is 512 or 4096 bytes (DATA+META, as 4096+64)", ErrOption, s)
	}
	if !ok {
		if data == 512 {
			return LBAFormat{}, nil // the zero value
		}
		return LBAFormat{Data: data}, nil
	}
	meta, err := strconv.ParseInt(m, 10, 64)
	if err != nil || !slices.Contains(metadataSizes, meta) {
		return LBAFormat{}, fmt.Errorf("%w: lba_format=%s: the metadata size is 8, 16, 64 or 128 bytes", ErrOption, s)
	}
	return LBAFormat{Data: data, Meta: meta}, nil
}

// ExtendedFormatOf returns the extended LBA format a job's block sizes
// name, when none is a multiple of 512 and all are multiples of one
// extended block of 4096 data bytes (fio's uring-cmd-pi-ext.fio: bs=4160,
// "the correct extended LBA size" of a namespace formatted 4096+64), and
// false otherwise. A 4160-byte block is also eight 520-byte ones
// (512+8): both carry 4096 bytes of data and 64 of metadata, and the
// 4096-byte format is the one returned.
func ExtendedFormatOf(j *Job) (LBAFormat, bool) {
	var sizes []int64
	for _, b := range slices.Concat(j.BS, j.BSDir[1], j.BSDir[2]) {
		if b.Bytes <= 0 || b.Bytes%512 == 0 {
			return LBAFormat{}, false
		}
		sizes = append(sizes, b.Bytes)
	}
	if len(sizes) == 0 {
		return LBAFormat{}, false
	}
	for _, m := range metadataSizes {
		f := LBAFormat{Data: 4096, Meta: m}
		all := true
		for _, s := range sizes {
			all = all && s%f.Block() == 0
		}
		if all {
			return f, true
		}
	}
	return LBAFormat{}, false
}
