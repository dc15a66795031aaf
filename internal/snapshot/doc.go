// Package snapshot saves the state of a simulated drive and restores it,
// so that a drive prepared once (filled, tortured) can be run from that
// state many times.
//
// # The codec
//
// Encode walks the object graph reachable from a pointer by reflection,
// unexported fields included, and writes every value it finds; Decode reads
// it back in place into a graph of the same types, normally one freshly
// built from the same description. Nothing is listed by hand, so a field
// added to a drive later is saved with the rest. The rules:
//
//   - scalars (bool, integers, floats) are written little-endian at their
//     size (int and uint as 8 bytes); slices and arrays of plain values —
//     scalars, and arrays and structs of them without padding — are copied
//     as raw memory in one write, never element by element, so that a
//     mapping table of 60 million entries costs one copy;
//   - a pointer's target is written once, where the walk first meets it;
//     later pointers to it are back references, so objects shared by
//     several owners (the flash device the controller and the FTL both
//     hold) stay shared. Decode writes a target into the fresh graph's
//     object at the same place when there is one, and allocates one
//     otherwise;
//   - an interface is written with its dynamic type's name and layout;
//     Decode restores it into the fresh graph's dynamic value, which must
//     be of the same type (an interface the fresh graph leaves nil, or
//     fills with another type, is refused with ErrShape);
//   - a map is written in the order of its keys' encoding; nil and empty
//     slices and maps stay distinct; a slice's capacity is not state
//     (only its length and elements are written), and Decode reuses the
//     fresh graph's backing arrays when they are large enough, so a
//     restored drive takes no more memory than a fresh one;
//   - func and chan values are wiring made at construction and are
//     skipped, as are struct fields tagged `snapshot:"-"` (state that does
//     not belong to the drive, such as a stop request, or wiring rebuilt
//     from the description); unsafe.Pointer and uintptr are refused.
//
// The stream starts with a SHA-256 of the root type's layout (its fields,
// their names and types, recursively), so that state written by a build
// whose types differ is refused (ErrLayout) rather than misread. Encode
// refuses a graph in which two slices, or a slice and a pointer, share
// memory (ErrShared): Decode could not restore the sharing.
//
// # The file
//
// A snapshot file (Write, Open) is the codec's stream behind a header
// that says what it holds and a trailer that checks it:
//
//	"FTLSIMSS"            8 bytes, the magic
//	version               uint32 little-endian (FormatVersion)
//	header length         uint32 little-endian, at most 64 KiB
//	header                JSON (Header): the writing program, the drive,
//	                      its description and that's key, the preparation
//	                      and its key, the simulated preparation time, the
//	                      compression
//	payload               the codec's stream, raw or compressed (flate)
//	stored length         uint64 little-endian: the payload's bytes in the file
//	raw length            uint64 little-endian: the codec stream's bytes
//	checksum              uint32 little-endian: CRC-32C (Castagnoli) of
//	                      every byte before the trailer
//	"SSEND\x00\x00\n"     8 bytes, the end mark
//
// The lengths and checksum are in a trailer because the file is written in
// one pass. Open checks the magic, the version, the header, that the file
// ends with the end mark where the lengths say, and the checksum over the
// whole file before anything is decoded: a file cut short, with a byte
// changed, or of another version is refused with a one-line error
// (ErrNotSnapshot, ErrVersion, ErrTruncated, ErrChecksum). The keys are
// compared by the caller, who knows what they cover.
//
// The package is not safe for concurrent use of one Encode or Decode;
// separate calls may run at once.
package snapshot
