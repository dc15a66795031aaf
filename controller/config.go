package controller

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// ErrConfig is wrapped by every drive-description error.
var ErrConfig = errors.New("invalid drive description")

// Size is a byte count that reads and writes as text with units.
type Size int64

// UnmarshalText accepts a number of bytes or a size with units.
func (s *Size) UnmarshalText(b []byte) error {
	v, err := units.ParseSize(string(b), true)
	if err != nil {
		return err
	}
	*s = Size(v)
	return nil
}

// MarshalText writes whole units where exact: decimal TB and GB as drive
// makers count ("240GB"), else binary ("256GiB", "32MiB"), else bytes.
func (s Size) MarshalText() ([]byte, error) {
	v := int64(s)
	for _, u := range []struct {
		suf string
		n   int64
	}{{"TB", 1e12}, {"GB", 1e9}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v != 0 && v%u.n == 0 {
			return fmt.Appendf(nil, "%d%s", v/u.n, u.suf), nil
		}
	}
	return fmt.Appendf(nil, "%d", v), nil
}

// Host describes the host interface (see nvme.go for NVMe).
type Host struct {
	// Interface is the host interface: SATA (the default, also when
	// empty: one command queue, a half-duplex link) or NVMe (several
	// queue pairs, a full-duplex PCIe link).
	Interface Interface `yaml:"interface,omitempty" layer:"controller" range:"sata|nvme" default:"sata" doc:"host interface"`
	// LinkMBps is the payload bandwidth of the link in 10^6 bytes/s
	// (SATA 6 Gb/s carries 600 MB/s of 8b/10b-coded data; FIS framing and
	// flow control leave about 550–570 MB/s of payload). On NVMe, 0
	// derives it from the PCIe link (PCIeGen, PCIeLanes,
	// PCIeEfficiencyPercent: see PCIeLinkMBps); a value given overrides
	// the derivation. On NVMe it is the bandwidth of each direction.
	LinkMBps int64 `yaml:"link_mbps" layer:"controller" unit:"MB/s" range:"1..100000" default:"on NVMe: from the PCIe link" doc:"payload bandwidth of the link (on NVMe, of each direction)"`
	// CommandNs is the link time each command costs beyond its data
	// (SATA: command, DMA-setup and status FISes; NVMe: the submission
	// and completion entries and the doorbell and interrupt messages,
	// with their packet headers).
	CommandNs int64 `yaml:"command_ns" layer:"controller" unit:"ns" range:"0..1000000000" doc:"link time each command costs beyond its data"`
	// QueueDepth is the commands one queue holds at the drive: NCQ's 32
	// on SATA; on NVMe, the depth of each I/O submission queue (an NVMe
	// queue of N entries holds N−1 commands: this is the commands).
	QueueDepth int `yaml:"queue_depth" layer:"controller" unit:"commands" range:"1..65536" doc:"commands one queue holds at the drive (NCQ: 32)"`
	// Queues is the NVMe I/O queue pairs (1..65535; 0 means 1). The jobs
	// of a group run, numjobs clones counted one by one, are numbered
	// 0, 1, …: job k submits to queue k mod Queues. SATA has one queue.
	Queues int `yaml:"queues,omitempty" layer:"controller" unit:"queue pairs" range:"0..65535" default:"0 means 1" doc:"NVMe I/O queue pairs; SATA has one"`
	// Namespaces splits the user capacity into this many NVMe namespaces
	// of equal size (whole mapping units; the last takes the rest),
	// numbered from 1 in LBA order. They share the drive's dies, buffer
	// and spare area: one FTL maps them all. 0 and 1: one namespace.
	Namespaces int `yaml:"namespaces,omitempty" layer:"firmware" unit:"namespaces" range:"0..1024" default:"0 means 1" doc:"NVMe namespaces the user capacity is split into, equal in size, sharing dies, buffer and spare"`
	// PCIeGen (1..5) and PCIeLanes (1, 2, 4, 8 or 16) are an NVMe drive's
	// PCIe link; PCIeEfficiencyPercent is the share of the coded rate
	// left for payload by packet framing and link traffic (1..100; 0:
	// DefaultPCIeEfficiencyPercent).
	PCIeGen               int `yaml:"pcie_gen,omitempty" layer:"controller" range:"0..5" default:"0: no PCIe link (link_mbps given)" doc:"PCIe generation of an NVMe drive's link"`
	PCIeLanes             int `yaml:"pcie_lanes,omitempty" layer:"board" range:"0|1|2|4|8|16" default:"0: no PCIe link (link_mbps given)" doc:"PCIe lanes of an NVMe drive's link"`
	PCIeEfficiencyPercent int `yaml:"pcie_efficiency_percent,omitempty" layer:"controller" unit:"%" range:"0..100" default:"0: 87" doc:"share of the PCIe coded rate left for payload"`
}

// Firmware describes the controller's firmware behaviour.
type Firmware struct {
	// CommandNs is the processor time to handle one command;
	// ReadCommandNs and WriteCommandNs, when set, replace it for reads that
	// go to flash (mapping look-ups, flash commands; a read served from
	// read-ahead costs CommandNs) and for writes.
	CommandNs      int64 `yaml:"command_ns" layer:"firmware" unit:"ns" range:"0..1000000000" doc:"processor time to handle one command"`
	ReadCommandNs  int64 `yaml:"read_command_ns,omitempty" layer:"firmware" unit:"ns" range:"0..1000000000" default:"0: command_ns" doc:"processor time of a read that goes to flash"`
	WriteCommandNs int64 `yaml:"write_command_ns,omitempty" layer:"firmware" unit:"ns" range:"0..1000000000" default:"0: command_ns" doc:"processor time of a write"`
	// ChannelStripe makes the firmware program host data in stripes
	// across the dies of each channel: a page to each die in turn, and
	// the channel's next stripe once every program of the last has ended
	// and StripeNs of work for it is done. Off, each die takes its next
	// page as soon as it can.
	ChannelStripe bool  `yaml:"channel_stripe,omitempty" layer:"firmware" doc:"program host data in stripes across each channel's dies, the next once the last has ended"`
	StripeNs      int64 `yaml:"stripe_ns,omitempty" layer:"firmware" unit:"ns" range:"0..100000000" default:"0: none" doc:"firmware work between one channel stripe and the next"`
	// HostDies is how the firmware chooses the die each new host page
	// goes to: HostDiesEarliest (the default), the die whose queued work
	// ends first, so that a die busy with collection is passed over
	// (dynamic allocation); HostDiesRotate, every die in turn whatever
	// it is doing, a page waiting for its die to free up (static
	// allocation), so that consecutive host pages always lie on
	// consecutive dies. A zoned namespace's writes keep to their zone's
	// dies, in turn, whatever this says.
	HostDies string `yaml:"host_dies,omitempty" layer:"firmware" range:"earliest|rotate" default:"earliest" doc:"die for each new host page: the one that frees up first, or every die in turn"`
	// DoorbellNs is the time from the host ringing a queue's doorbell to
	// the command being in the controller (NVMe: the doorbell's posted
	// write and the fetch of the 64-byte submission entry from host
	// memory); InterruptNs the time from the controller posting the
	// completion to the host seeing it (the completion entry, the MSI-X
	// interrupt and the driver's handler). Every command pays both as
	// latency; neither occupies the firmware core or the link (the
	// entries' link time is Host.CommandNs), so deep queues hide them.
	// 0: none, as on the SATA presets.
	DoorbellNs  int64 `yaml:"doorbell_ns,omitempty" layer:"controller" unit:"ns" range:"0..10000000" default:"0: none" doc:"latency from the host's doorbell to the command in the controller"`
	InterruptNs int64 `yaml:"interrupt_ns,omitempty" layer:"controller" unit:"ns" range:"0..10000000" default:"0: none" doc:"latency from the completion posted to the host seeing it"`
	// DatapathReadMBps and DatapathWriteMBps bound the rate, in 10^6
	// bytes/s, at which the firmware moves host data through the
	// controller (DMA set-up, buffer management and ECC, a page at a
	// time, as the firmware drives them); 0 is unbounded. They are the
	// firmware's: the same silicon moves data at different rates under
	// different firmware (the Marvell 88SS9174 writes 315 MB/s in the
	// Intel 510 and 215-260 MB/s under Crucial's firmware, drives.md; the
	// Intel PC29AS21 writes 70-100 MB/s in the X25-M and 220 MB/s in the
	// SSD 320).
	DatapathReadMBps  int64 `yaml:"datapath_read_mbps,omitempty" layer:"firmware" unit:"MB/s" range:"0..100000" default:"0: unbounded" doc:"rate at which the firmware moves read data through the controller"`
	DatapathWriteMBps int64 `yaml:"datapath_write_mbps,omitempty" layer:"firmware" unit:"MB/s" range:"0..100000" default:"0: unbounded" doc:"rate at which the firmware moves write data through the controller"`
	// CompressOutMBps is, on a compressing drive, the rate in 10^6
	// bytes/s at which the compression engine emits what it leaves of the
	// host's data (stored bytes: all of them for incompressible data)
	// while it takes data in at DatapathWriteMBps; the slower of the two
	// sets the pace, so incompressible data crosses it more slowly than
	// compressible data. 0 is unbounded. A firmware value: two drives on
	// one SF-2281 write incompressible data at 189 and 294 MB/s in one
	// procedure (the Mushkin Atlas and the Intel 525, whose firmware is
	// Intel's own), which no value of the silicon's can give both.
	CompressOutMBps int64 `yaml:"compress_out_mbps,omitempty" layer:"firmware" unit:"MB/s" range:"0..100000" default:"0: unbounded" doc:"rate at which the compression engine emits stored bytes"`
	// ReadSuspend lets a host read suspend a program or erase in progress
	// on its die (and jump the die's queue) instead of waiting, at a cost
	// of SuspendNs; the suspended work finishes later by as much.
	ReadSuspend bool  `yaml:"read_suspend,omitempty" layer:"firmware" doc:"a host read suspends a program or erase on its die"`
	SuspendNs   int64 `yaml:"suspend_ns,omitempty" layer:"firmware" unit:"ns" range:"0..10000000" doc:"cost of suspending a program or erase"`
	// SuspendLimit is the most host reads in a row that may suspend a
	// die's pending programs and erases; the next waits for them to
	// finish, so that reads that keep a die busy cannot hold its writes
	// back for ever. 0: no limit.
	SuspendLimit int `yaml:"suspend_limit,omitempty" layer:"firmware" unit:"reads" range:"0..1000000" default:"0: no limit" doc:"most host reads in a row that may suspend a die's work"`
	// ReadPriority makes the firmware send a die's host and read-ahead
	// reads before the programs and erases it has queued for the die and
	// not started: a read waits for the operation in progress (or, with
	// ReadSuspend, suspends it), not for the whole queue a write buffer
	// of acknowledged data leaves behind, which starts later by the
	// read's time. SuspendLimit bounds the reads in a row that go first.
	ReadPriority bool `yaml:"read_priority,omitempty" layer:"firmware" doc:"a die's host and read-ahead reads go before its queued programs and erases"`
	// ReadAhead is how far the firmware reads ahead of a sequential read
	// stream into its buffer; 0 turns read-ahead off.
	ReadAhead Size `yaml:"read_ahead,omitempty" layer:"firmware" unit:"bytes" range:"0..64MiB" default:"0: off" doc:"how far the firmware reads ahead of a sequential stream"`
	// BufferNs is the DRAM access time of a read served from the buffer.
	BufferNs int64 `yaml:"buffer_ns" layer:"board" unit:"ns" range:"0..1000000000" doc:"DRAM access time of a read served from the buffer"`
	// WriteBuffer is the DRAM given to buffering host writes.
	WriteBuffer Size `yaml:"write_buffer" layer:"firmware" unit:"bytes" range:"0..1TiB" doc:"DRAM given to buffering host writes: at least two multi-plane pages and a unit"`
	// GCPolicy names the victim policy: a built-in one (see
	// ftl.ParsePolicy) or one registered in Config.Policies.
	GCPolicy string `yaml:"gc_policy" layer:"firmware" doc:"victim policy: a built-in one (greedy, cost-benefit, fifo, random, d-choices:D) or one registered"`
	// GCLowWater and GCHighWater are free groups per die for foreground
	// and background collection (see ftl.Config).
	GCLowWater  int `yaml:"gc_low_water" layer:"firmware" unit:"groups/die" range:"0..1048576" ftl:"GCLowWater" doc:"free groups per die at which blocking collection starts"`
	GCHighWater int `yaml:"gc_high_water" layer:"firmware" unit:"groups/die" range:"0..1048576" ftl:"GCHighWater" doc:"free groups per die background collection restores"`
	// GCRestoreTo is how many free groups per die a blocking collection
	// restores once it starts (0: gc_low_water+1); firmware that defers
	// cleanup sets it high and stalls the host while it cleans.
	GCRestoreTo int `yaml:"gc_restore_to,omitempty" layer:"firmware" unit:"groups/die" range:"0..1048576" ftl:"GCRestoreTo" default:"0: gc_low_water+1" doc:"free groups per die a blocking collection restores"`
	// GCPaceWater starts paced collection (a little cleaning after each
	// host page) at this many free groups per die; 0 cleans only at
	// GCLowWater, all at once, which stalls the host (see ftl.Config).
	GCPaceWater int `yaml:"gc_pace_water" layer:"firmware" unit:"groups/die" range:"0..1048576" ftl:"GCPaceWater" default:"0: no paced collection" doc:"free groups per die at which paced collection starts"`
	// GCPacePercent is how fast paced collection cleans, in percent of
	// the rate that keeps a die's free space level (0 or 100: that rate,
	// a steady share for the host); above 100 a die cleans ahead, then
	// lets the host run free until it is back at gc_pace_water: stretches
	// of cleaning alternate with bursts of host writes; below 100 it falls
	// behind until blocking collection at gc_low_water stalls the host
	// (see ftl.Config).
	GCPacePercent int `yaml:"gc_pace_percent,omitempty" layer:"firmware" unit:"%" range:"0..10000" ftl:"GCPacePercent" default:"0 means 100" doc:"speed of paced collection against the rate that keeps free space level"`
	// GCReserve is how the free-group thresholds above are sized:
	// "fixed", every die keeps them as given, whatever its size; "spare",
	// they are scaled down on dies whose spare area is too small for them
	// (ftl.ReserveSpare), so that the write points and the reserve hold
	// at most a quarter of the spare where collection allows.
	// Zoned makes the drive a zoned namespace (see Zoned).
	Zoned Zoned `yaml:"zoned,omitempty" doc:"a zoned namespace (NVMe ZNS): zone size, capacity and limits"`
	// FDP is flexible data placement (see FDP).
	FDP       FDP    `yaml:"fdp,omitempty" doc:"flexible data placement (NVMe FDP): reclaim unit handles and their isolation"`
	GCReserve string `yaml:"gc_reserve,omitempty" layer:"firmware" range:"fixed|spare" default:"fixed" doc:"how the gc_* free-group thresholds are sized: as given on every die, or from the spare area"`
	// PowerLossProtection is capacitors that hold the drive up long enough,
	// on a power cut, to finish the flash operations under way and program
	// what the write buffer holds: nothing acknowledged is lost.
	PowerLossProtection bool `yaml:"power_loss_protection,omitempty" layer:"board" doc:"capacitors finish the work under way and save the write buffer on a power cut"`
	// GCSafeErase makes flushed data survive power cuts (see
	// ftl.Config.SafeErase): a cleaned victim is erased only once the
	// data moved out of it, and the host data that superseded its units,
	// are programmed on complete word lines, and a FLUSH (or FUA write)
	// pads the word lines it leaves half programmed, so that no
	// interrupted upper-page program can destroy what it made durable.
	// Off, a victim is erased as soon as its last unit has moved, and a
	// power cut can lose flushed data, as many drives did in Zheng et
	// al.'s tests (FAST '13).
	GCSafeErase bool `yaml:"gc_safe_erase,omitempty" layer:"firmware" ftl:"SafeErase" doc:"a victim is erased only once what superseded it is durable"`
	// BackgroundGC enables collection while the host is idle, after
	// IdleNs without a command.
	BackgroundGC bool  `yaml:"background_gc" layer:"firmware" doc:"collect while the host is idle"`
	IdleNs       int64 `yaml:"idle_ns" layer:"firmware" unit:"ns" range:"0..3600000000000" doc:"time without a command after which the drive is idle"`
	// ReclaimOnIdle erases, while idle, every full group that holds no
	// valid data (space freed by TRIM or overwrites), beyond the
	// background target, so that a trimmed drive writes at its clean speed.
	ReclaimOnIdle bool `yaml:"reclaim_on_idle,omitempty" layer:"firmware" doc:"erase, while idle, every full group that holds no valid data"`
	// StaticWLSpread is the erase-count spread that triggers static wear
	// levelling (0: off).
	StaticWLSpread int `yaml:"static_wl_spread" layer:"firmware" unit:"erases" range:"0..1073741824" ftl:"StaticWLSpread" default:"0: off" doc:"erase-count spread that triggers static wear levelling"`
	// TrimUnitNs is the firmware time to unmap one mapping unit.
	TrimUnitNs int64 `yaml:"trim_unit_ns" layer:"firmware" unit:"ns" range:"0..1000000" doc:"firmware time to unmap one mapping unit"`
	// TrimBacklog, when set, is how much trimmed space (in bytes of user
	// capacity) the firmware records before it reclaims it, which it does
	// while idle at TrimUnitNs a unit; TRIM ranges arriving while the
	// backlog is full are dropped (TRIM is advisory), so a whole-drive
	// TRIM only partly frees a full drive. 0: every TRIM is applied.
	TrimBacklog Size `yaml:"trim_backlog,omitempty" layer:"firmware" unit:"bytes" range:"0..1PiB" default:"0: every TRIM applied at once" doc:"trimmed space recorded before it is reclaimed while idle"`

	// Compression stores each mapping unit compressed (SandForce
	// DuraWrite): a unit takes its compressed size rounded up to whole
	// slots of CompressionSlot bytes, at most the whole unit
	// (incompressible data is stored as it is), and a unit that repeats
	// earlier data (Data.DedupePct) takes one slot, a reference. Smaller
	// slots follow the compressed size more closely and cost memory: the
	// simulator keeps 4 bytes per slot of flash.
	Compression     bool `yaml:"compression,omitempty" layer:"controller" doc:"store each mapping unit compressed (SandForce DuraWrite)"`
	CompressionSlot Size `yaml:"compression_slot,omitempty" layer:"firmware" unit:"bytes" range:"0|512..512KiB" doc:"compressed units take whole slots: a power of two, at most half of unit_bytes"`
	// RaiseStripe turns on die-level parity (SandForce RAISE): after every
	// RaiseStripe−1 pages of data a parity page is programmed on the next
	// die, and 1/RaiseStripe of every die holds parity instead of data
	// (so the same capacity needs that much more flash). 0: off.
	RaiseStripe int `yaml:"raise_stripe,omitempty" layer:"firmware" unit:"pages" range:"0|2..1024" default:"0: off" doc:"die-level parity: one parity page in this many, at most blocks_per_plane"`
	// MapCache is the part of the mapping table the drive holds, in
	// bytes of 4-byte entries: the share of the board's DRAM the mapping
	// gets (the Intel X25-M's 16 MB cannot hold the 80 MB table of its
	// 80 GB), or, on a DRAM-less controller, the memory on its chip. A
	// command whose entry is not held reads its mapping page (one flash
	// page of entries) from flash first, and a changed page leaving the
	// cache is programmed back. 0: the whole table is in DRAM. It is the
	// board's: drives on one controller hold as much as their DRAM allows
	// (a DRAM-less controller's lines all state its on-chip memory).
	MapCache Size `yaml:"map_cache,omitempty" layer:"board" unit:"bytes" range:"0..1TiB" default:"0: whole table in DRAM" doc:"mapping table the drive holds (a DRAM share, or on-chip memory): at least one mapping page"`
	// MapCheckpoint is the host bytes written between the firmware's
	// mapping checkpoints: each programs the mapping pages (4-byte
	// entries) changed since the last, so that a drive without power-loss
	// protection mounts by reading the saved mapping and scanning only the
	// pages programmed since, not every page. 0: none (mount scans all).
	MapCheckpoint Size `yaml:"map_checkpoint,omitempty" layer:"firmware" unit:"bytes" range:"0|1MiB..1PiB" default:"0: none" doc:"host bytes written between mapping checkpoints"`
	// MapMissNs is the firmware time a mapping-cache miss costs (finding
	// the mapping page, choosing and writing back a victim), spent before
	// the firmware takes its next command.
	MapMissNs int64 `yaml:"map_miss_ns,omitempty" layer:"firmware" unit:"ns" range:"0..1000000000" doc:"firmware time of a mapping-cache miss"`
	// HMB is, on an NVMe drive with a mapping cache (MapCache), the host
	// memory buffer the host lends it: a second tier of mapping pages in
	// host DRAM. A look-up that misses the controller's own cache but
	// finds its page in the HMB costs HMBNs (the round trip of a read of
	// host memory over PCIe) instead of a flash read; a page in neither
	// is read from flash and kept in both. A changed page the controller
	// evicts goes to the HMB, and a changed page the HMB evicts is
	// programmed to flash. 0: no HMB.
	HMB   Size  `yaml:"hmb,omitempty" layer:"firmware" unit:"bytes" range:"0..1TiB" default:"0: none" doc:"host memory buffer backing an NVMe mapping cache: at least one mapping page"`
	HMBNs int64 `yaml:"hmb_ns,omitempty" layer:"controller" unit:"ns" range:"0..10000000" doc:"round trip of a read of host memory over PCIe"`

	// SLCCache is the SLC cache of a TLC or QLC drive (see SLCCache).
	SLCCache SLCCache `yaml:"slc_cache,omitempty" doc:"the SLC cache of a TLC or QLC drive"`

	// The garbage-collection data path (controller/gcpath.go). Each is
	// off by default; the drives' values are fitted to the reviews.

	// GCUnitNs is the firmware time per device unit garbage collection
	// or wear levelling copies (reading it in, updating its mapping,
	// issuing its program), spent on the core that also takes host
	// commands, so host commands queue behind cleaning.
	GCUnitNs int64 `yaml:"gc_unit_ns,omitempty" layer:"firmware" unit:"ns" range:"0..100000000" doc:"firmware time per unit garbage collection copies"`
	// ECCMBps is the ECC engine's throughput in MB/s. Data that garbage
	// collection copies through the controller crosses it twice (decode
	// after the read, encode before the program); 0: no limit.
	ECCMBps int64 `yaml:"ecc_mbps,omitempty" layer:"controller" unit:"MB/s" range:"0..1000000" default:"0: no limit" doc:"ECC engine throughput collection's copies cross twice"`
	// GCCopyback copies garbage collection's data within the die (the
	// NAND copyback command): the page is sensed and programmed again
	// without crossing the channel, the ECC engine or the firmware's
	// per-unit work.
	GCCopyback bool `yaml:"gc_copyback,omitempty" layer:"firmware" doc:"collection copies within the die (NAND copyback)"`
	// GCStreams is how many garbage-collection operations the firmware
	// keeps in flight: the dies are dealt to the streams in turn, and a
	// stream issues a read or program of copied data and waits for it to
	// finish before issuing its next, so at most this many dies copy at
	// once. 0: no limit (every die may copy while the host writes to
	// others).
	GCStreams int `yaml:"gc_streams,omitempty" layer:"firmware" unit:"operations" range:"0..65536" default:"0: no limit" doc:"collection operations in flight at once"`
	// GCVictimNs is the firmware time to choose each victim garbage
	// collection or wear levelling cleans (scanning valid counts), spent
	// before the victim's copies start, on the core that does GC work.
	GCVictimNs int64 `yaml:"gc_victim_ns,omitempty" layer:"firmware" unit:"ns" range:"0..1000000000" doc:"firmware time to choose each victim"`
	// Cores is the number of firmware cores. With one (0 means one) the
	// core that takes host commands also does GC work (GCUnitNs,
	// GCVictimNs), so host commands queue behind it; with more, GC work
	// runs on the others (the dies dealt to them in turn) while the first
	// takes host commands.
	Cores int `yaml:"firmware_cores,omitempty" layer:"controller" unit:"cores" range:"0..64" default:"0 means 1" doc:"firmware cores; with more than one, collection runs beside host commands"`

	// Read errors (controller/readerr.go).

	// ReadErrors evaluates the NAND part's raw bit-error model
	// (nand.Reliability) on every flash read the controller decodes: ECC
	// corrects ECCBits bits in each codeword of ECCCodeword data bytes,
	// read retry senses a page again (tR and the transfer each step) up
	// to the part's steps, and a read ECC cannot correct is rebuilt from
	// RAISE parity or fails. Off, every read is correct and costs nothing
	// more.
	ReadErrors bool `yaml:"read_errors,omitempty" layer:"firmware" doc:"evaluate the part's raw bit-error model on every flash read"`
	// ECCBits is the bits the ECC engine corrects in one codeword.
	ECCBits int `yaml:"ecc_bits,omitempty" layer:"controller" unit:"bits" range:"0..1000" doc:"bits the ECC corrects in one codeword"`
	// ECCCodeword is the data bytes one codeword protects.
	ECCCodeword Size `yaml:"ecc_codeword,omitempty" layer:"controller" unit:"bytes" range:"0|64..64KiB" doc:"data bytes one ECC codeword protects"`
	// ReadReclaimReads refreshes a block's plane group — its valid data
	// moved, the group erased — once the block has been read this many
	// times since its erase (read-disturb management); 0: never.
	ReadReclaimReads int `yaml:"read_reclaim_reads,omitempty" layer:"firmware" unit:"reads" range:"0..1000000000" default:"0: never" doc:"reads of a block since its erase that make the firmware refresh it"`
}

// Config describes a drive.
type Config struct {
	Name        string `yaml:"name" layer:"drive" doc:"the drive's name"`
	Description string `yaml:"description,omitempty" layer:"drive" doc:"one line about the drive"`
	// Sizing says which of Capacity, OPPercent and the flash
	// (NAND.Geometry.BlocksPerPlane) follows from the other two; the
	// zero value is SizeFlash. See Sizing.
	Sizing Sizing `yaml:"sizing,omitempty" layer:"drive" range:"flash|spare|capacity" default:"flash" doc:"which of capacity, op_percent and the flash follows from the other two"`
	// Capacity is the user-visible capacity: an input under SizeFlash and
	// SizeSpare, 0 under SizeCapacity (which derives it).
	Capacity Size `yaml:"capacity" layer:"firmware" unit:"bytes" range:"0.." default:"derived (sizing: capacity)" doc:"user-visible capacity: a multiple of 512, rounded down to whole mapping units"`
	// OPPercent is the spare area asked for, as a percentage of user
	// capacity: physical = capacity × (1 + OPPercent/100). Under
	// SizeSpare the geometry decides it and OPPercent, when non-zero, must
	// agree. Resolve never changes it; the spare area the rounded geometry
	// gives is Resolved.SparePercent.
	OPPercent float64     `yaml:"op_percent" layer:"firmware" unit:"% of capacity" range:"0..400" doc:"spare area asked for: flash = capacity × (1 + op_percent/100)"`
	NAND      nand.Config `yaml:"nand" doc:"the flash array: the NAND part and how many dies"`
	Host      Host        `yaml:"host" doc:"the host interface"`
	Firmware  Firmware    `yaml:"firmware" doc:"the controller's firmware and data path"`
	Power     Power       `yaml:"power" doc:"energy and power figures"`
	// Seed seeds the firmware's random choices (randomised GC policies).
	Seed uint64 `yaml:"seed,omitempty" layer:"drive" ftl:"Seed" doc:"seeds the firmware's random choices and the factory bad blocks"`
	// Policies is where Firmware.GCPolicy is looked up: a program that
	// registers its own victim policies sets it (nil: the built-in ones).
	// It is not part of the description's text, nor of a drive's saved
	// state (the drive a state is restored into has its own).
	Policies *ftl.Registry `yaml:"-" snapshot:"-"`

	// origin is where the description was read from, for errors; nil for
	// one built in Go.
	origin *origin `snapshot:"-"`
}

// DeviceConfig is the flash array the drive builds: the description's,
// with compression slots, or the pages a mapping unit larger than a page
// spans, as its device units.
func (c *Config) DeviceConfig() nand.Config {
	n := c.NAND
	n.Seed = c.Seed // the factory bad blocks
	n.TrackAge = c.Firmware.ReadErrors
	if c.Firmware.Compression {
		n.Geometry.UnitBytes = int(c.Firmware.CompressionSlot)
	} else {
		n.Geometry.UnitBytes = n.Geometry.DeviceUnitBytes()
	}
	// The flash keeps its OOB tags (the reverse map) where they cost
	// little; on large drives, or when asked, the FTL keeps the part of
	// them it needs instead, trading the time of passes over its mapping
	// table for 4 bytes a unit. A drive that can lose power keeps the
	// tags a rebuild reads.
	n.DropTags = !n.TrackData && (n.DropTags || n.Geometry.Units() > CompactMapUnits)
	return n
}

// CompactMapUnits is the number of device units above which a drive
// keeps no OOB tags on its flash (nand.Config.DropTags, which a
// description built in Go may also set): 2³⁰ units, 4 GiB of tags (4 TiB
// of flash at 4 KiB units, 16 TiB at 16 KiB).
const CompactMapUnits = 1 << 30

// MemoryEstimate returns the bytes of simulator state a geometry needs
// (its unit_bytes being the device unit): per unit a mapping entry, a
// valid bit and an OOB tag, per block its state. A device that keeps no
// tags (nand.Config.DropTags) needs less: see CompactMemoryEstimate.
func MemoryEstimate(g nand.Geometry) int64 {
	units := float64(g.Groups()) * float64(g.UnitsPerGroup())
	return int64(units*(4+4+0.125)) + int64(g.Blocks())*16
}

// CompactMemoryEstimate is MemoryEstimate for a device that keeps no
// tags: the FTL's share of the reverse map instead (a tenth of the
// groups and the victims being collected: at most half a tag a unit).
func CompactMemoryEstimate(g nand.Geometry) int64 {
	units := float64(g.Groups()) * float64(g.UnitsPerGroup())
	return MemoryEstimate(g) - int64(units*3.5)
}

// FTLConfig returns the translation-layer configuration of a resolved
// description: the fields the table pairs with ftl.Config fields (their
// ftl tag) copied, and the sizes the FTL counts in groups and units
// derived.
func (c *Config) FTLConfig() (ftl.Config, error) {
	p, err := c.Policies.Parse(c.Firmware.GCPolicy)
	if err != nil {
		return ftl.Config{}, c.policyErr(err)
	}
	k := c.NAND.Geometry.UnitSpan() // a large mapping unit spans pages
	if c.Firmware.Compression {
		k = c.NAND.Geometry.UnitBytes / int(c.Firmware.CompressionSlot)
	}
	reserved := 0
	if s := c.Firmware.RaiseStripe; s > 1 {
		reserved = (c.NAND.Geometry.BlocksPerPlane + s - 1) / s
	}
	fc := ftl.Config{
		UnitSlots:      k,
		ReservedGroups: reserved,
		UserUnits:      int64(c.Capacity) / int64(c.NAND.Geometry.UnitBytes),
		KeepErased:     c.NAND.TrackData, // a drive that tracks data can lose power
		Victim:         p,

		SLCStaticGroups:   c.slcGroups(c.Firmware.SLCCache.Static),
		SLCDynamicGroups:  c.slcGroups(c.Firmware.SLCCache.DynamicMax),
		SLCDynamicReserve: c.nativeGroups(c.Firmware.SLCCache.DynamicReserve),
		SLCDirect:         c.Firmware.SLCCache.WhenFull == "direct",
		Reserve:           c.Firmware.reserveMode(),
	}
	c.copyToFTL(&fc)
	if n := c.zoneWritePoints(); n > 1 {
		// A zoned drive's write points are placement handles, initially
		// isolated: no device collection moves zone data apart from
		// bad blocks and metadata, so none is kept apart.
		fc.Handles = n
	}
	return fc, nil
}

// policyErr is the error for a victim policy the registry does not have.
func (c *Config) policyErr(err error) error {
	return c.errAt(&c.Firmware.GCPolicy, "%s = %q, allowed %s (%v)", c.FieldPath(&c.Firmware.GCPolicy), c.Firmware.GCPolicy,
		strings.Join(c.Policies.Names(), ", "), err)
}

// LoadConfig reads a drive description in YAML. Unknown fields are
// errors; errors name the file, the line and the field. A description
// may build on another (base: NAME, a preset or a file named relative to
// this one): its fields are merged over the base's (see ParseConfig).
func LoadConfig(file string) (Config, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Config{}, err
	}
	return fileLoader().decodeConfig(file, b)
}

// ParseConfig decodes a YAML drive description; name is used in errors,
// and as the file that a base given as a relative file name is next to.
//
// The text is one YAML document, a mapping of the fields the table holds
// (Fields; docs/drive-fields.md), each of its type: integers must be whole
// numbers. With "base: NAME" it builds on another description, a preset
// or a file: the base is read first and the text's fields merged over it,
// a section field by field, any other value replacing the base's; a field
// set to null (~) is removed, taking its default. A base may have a base;
// a cycle is an error.
//
// Where the description was read from travels with the Config: errors
// that Resolve finds later name the file and the line of the field, as
// long as its value is still the one read.
func ParseConfig(name string, b []byte) (Config, error) {
	return fileLoader().decodeConfig(name, b)
}

// decodeStrict decodes YAML that is not a drive description (a NAND part,
// a product line), refusing unknown fields and a second document; errors
// name the file and the line.
func decodeStrict(name string, b []byte, dst any) error {
	if _, err := parseDocument(name, b); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(dst); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w: %s", name, ErrConfig, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return nil
}

// Marshal writes the description as YAML that ParseConfig reads back.
func (c Config) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

//go:embed presets/*.yaml presets/nand/*.yaml presets/controllers/*.yaml presets/lines/*.yaml
var presetFS embed.FS

// Presets returns the names of the built-in drive descriptions: the
// generic drives and every capacity point of every product line.
func Presets() []string {
	var names []string
	ents, _ := presetFS.ReadDir("presets")
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	for _, ln := range Lines() {
		if l, err := LoadLine(ln); err == nil {
			for _, v := range l.Variants {
				names = append(names, v.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// Preset returns the built-in description called name (not yet resolved).
func Preset(name string) (Config, error) {
	b, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
	if err == nil {
		return presetLoader().decodeConfig(name, b)
	}
	if l, v, ok := variantByName(name); ok {
		return l.Expand(v)
	}
	return Config{}, fmt.Errorf("%w: drive %q is not a preset (presets: %s) nor a file", ErrConfig, name, strings.Join(Presets(), ", "))
}

// Lookup returns the preset called name, or the description in the file
// called name when no preset has that name.
func Lookup(name string) (Config, error) {
	if c, err := Preset(name); err == nil {
		return c, nil
	}
	if _, err := os.Stat(name); err == nil {
		return LoadConfig(name)
	}
	return Preset(name)
}

// Check resolves the description and makes the checks New makes of its
// translation layer, without building the drive: a description is
// checked before the memory of its drive is spent. New may still refuse
// a drive whose factory bad blocks leave too little spare.
func (c Config) Check() (Resolved, error) {
	r, err := c.Resolve()
	if err != nil {
		return r, err
	}
	cfg := r.Config
	fc, err := cfg.FTLConfig()
	if err != nil {
		return r, err
	}
	if err := fc.Validate(cfg.DeviceConfig().Geometry); err != nil {
		return r, c.ftlError(err)
	}
	return r, nil
}
