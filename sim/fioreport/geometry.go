package fioreport

// Geometry describes the simulated drive.
type Geometry struct {
	Drive            string  `json:"drive"`
	Channels         int     `json:"channels"`
	Dies             int     `json:"dies"`
	Planes           int     `json:"planes"`
	Blocks           int     `json:"blocks"`
	PagesPerBlock    int     `json:"pages_per_block"`
	PageBytes        int     `json:"page_bytes"`
	MappingUnitBytes int     `json:"mapping_unit_bytes"`
	PhysicalBytes    int64   `json:"physical_bytes"`
	UserBytes        int64   `json:"user_bytes"`
	OPPercent        float64 `json:"op_percent"`
	OpenBlocks       int     `json:"open_blocks"`
	ReserveBlocks    int     `json:"reserve_blocks"`
	BadBlocks        int     `json:"bad_blocks"`
	RetiredGroups    int     `json:"retired_groups"`
	GrownBadBlocks   int     `json:"grown_bad_blocks"`
	// EffectiveOPPercent is the spare left to garbage collection, the
	// write points and the reserve taken out, in percent of the user
	// capacity; HeldSparePercent the share of the spare they hold.
	EffectiveOPPercent float64 `json:"effective_op_percent"`
	HeldSparePercent   float64 `json:"held_spare_percent"`
	// Warnings are what the user should know about the drive before
	// trusting its figures (its write points holding more than a
	// quarter of its spare area).
	Warnings []string `json:"warnings,omitempty"`
}
