package sim

import "github.com/ftlsim/ftlsim/controller"

// FDPStats is an FDP drive's FDP Statistics log (NVMe log page 22h) over
// a run, with NVMe's names, in total and per reclaim unit handle. In
// total, media bytes are every byte programmed (host data, collection's
// copies, padding, the controller's parity and mapping pages: the
// metadata of "media bytes with metadata written"), so that
// media_bytes_written / host_bytes_with_metadata_written is the device's
// write amplification; media bytes erased are the FTL's erases.
type FDPStats struct {
	HostBytesWithMetadataWritten int64 `json:"host_bytes_with_metadata_written"`
	MediaBytesWritten            int64 `json:"media_bytes_written"`
	MediaBytesErased             int64 `json:"media_bytes_erased"`
	// InvalidPlacementIdentifiers counts Invalid Placement Identifier
	// events (03h): writes naming no handle, placed through handle 0.
	InvalidPlacementIdentifiers int64 `json:"invalid_placement_identifier_events"`
	// Handles is per reclaim unit handle: the host's bytes written
	// through it, and the bytes programmed in and erased from the reclaim
	// units holding its data.
	Handles []FDPHandleStats `json:"handles"`
	// SharedGC is the reclaim units collection filled with initially
	// isolated handles' data together.
	SharedGC FDPHandleStats `json:"shared_gc"`
}

// FDPHandleStats is one reclaim unit handle's share of the FDP statistics.
type FDPHandleStats struct {
	Handle                       int    `json:"handle"`
	Isolation                    string `json:"isolation,omitempty"` // "persistent" or "initial"
	HostBytesWithMetadataWritten int64  `json:"host_bytes_with_metadata_written"`
	MediaBytesWritten            int64  `json:"media_bytes_written"`
	MediaBytesErased             int64  `json:"media_bytes_erased"`
}

// fdpStats is the FDP statistics of c since f0 (nil without FDP); the
// totals are filled by Device.derive.
func fdpStats(c *controller.Controller, f0 controller.FDPCounters) *FDPStats {
	f, ok := c.FDPCounters()
	if !ok {
		return nil
	}
	out := &FDPStats{InvalidPlacementIdentifiers: f.InvalidPIDs - f0.InvalidPIDs, Handles: make([]FDPHandleStats, len(f.Handles))}
	sub := func(a, b controller.FDPHandleCounters) FDPHandleStats {
		return FDPHandleStats{HostBytesWithMetadataWritten: a.HostBytes - b.HostBytes, MediaBytesWritten: a.MediaBytes - b.MediaBytes,
			MediaBytesErased: a.ErasedBytes - b.ErasedBytes}
	}
	for h := range f.Handles {
		var b controller.FDPHandleCounters
		if h < len(f0.Handles) {
			b = f0.Handles[h]
		}
		out.Handles[h] = sub(f.Handles[h], b)
		out.Handles[h].Handle = h
		out.Handles[h].Isolation = "initial"
		if c.FTL().Persistent(h) {
			out.Handles[h].Isolation = "persistent"
		}
	}
	out.SharedGC = sub(f.Shared, f0.Shared)
	out.SharedGC.Handle = -1
	return out
}

// add adds b's figures to s's (steps of a run).
func (s *FDPStats) add(b *FDPStats) {
	s.InvalidPlacementIdentifiers += b.InvalidPlacementIdentifiers
	for len(s.Handles) < len(b.Handles) {
		h := b.Handles[len(s.Handles)]
		s.Handles = append(s.Handles, FDPHandleStats{Handle: h.Handle, Isolation: h.Isolation})
	}
	plus := func(a *FDPHandleStats, b FDPHandleStats) {
		a.HostBytesWithMetadataWritten += b.HostBytesWithMetadataWritten
		a.MediaBytesWritten += b.MediaBytesWritten
		a.MediaBytesErased += b.MediaBytesErased
	}
	for i, h := range b.Handles {
		plus(&s.Handles[i], h)
	}
	plus(&s.SharedGC, b.SharedGC)
}

// deriveFDP fills the FDP totals from the device's figures.
func (d *Device) deriveFDP() {
	f := d.FDP
	if f == nil {
		return
	}
	f.HostBytesWithMetadataWritten = d.HostWriteBytes
	f.MediaBytesWritten = d.NANDWriteBytes
	f.MediaBytesErased = f.SharedGC.MediaBytesErased
	for _, h := range f.Handles {
		f.MediaBytesErased += h.MediaBytesErased
	}
}
