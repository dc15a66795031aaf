package fioreport

// NamespaceSum is what the jobs of one namespace did: their bytes and
// I/Os per direction, and their bandwidth and IOPS added up.
type NamespaceSum struct {
	ID           int      `json:"nsid"`
	Jobs         []string `json:"jobs"`
	ReadBytes    int64    `json:"read_bytes"`
	WriteBytes   int64    `json:"write_bytes"`
	TrimBytes    int64    `json:"trim_bytes"`
	ReadIOPS     float64  `json:"read_iops"`
	WriteIOPS    float64  `json:"write_iops"`
	ReadBWBytes  int64    `json:"read_bw_bytes"`
	WriteBWBytes int64    `json:"write_bw_bytes"`
}

// SumNamespaces sums the jobs of each namespace (those with Namespace
// set), in namespace order; nil when none is set.
func SumNamespaces(jobs ...Job) []NamespaceSum {
	var out []NamespaceSum
	for _, j := range jobs {
		if j.Namespace <= 0 {
			continue
		}
		for len(out) < j.Namespace {
			out = append(out, NamespaceSum{ID: len(out) + 1, Jobs: []string{}})
		}
		s := &out[j.Namespace-1]
		s.Jobs = append(s.Jobs, j.JobName)
		s.ReadBytes += j.Read.IOBytes
		s.WriteBytes += j.Write.IOBytes
		s.TrimBytes += j.Trim.IOBytes
		s.ReadIOPS = round(s.ReadIOPS + j.Read.IOPS)
		s.WriteIOPS = round(s.WriteIOPS + j.Write.IOPS)
		s.ReadBWBytes += j.Read.BWBytes
		s.WriteBWBytes += j.Write.BWBytes
	}
	return out
}
