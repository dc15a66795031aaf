package workload

// fio's flow control (flow, flow_id): the jobs of one flow_id keep their
// numbers of I/Os in the ratio of their flow weights. Before each I/O, a
// job whose share of the group's I/Os is above its share of the group's
// weight waits (fio's flow_threshold_exceeded); here it waits until an
// I/O of the run completes, then tries again (Generator.Stalled).

// FlowGroup is the flow of one flow_id, shared by its jobs.
type FlowGroup struct {
	weight int   // the group's jobs' weights (fio's total_weight)
	ios    int64 // the group's I/Os (fio's flow_counter)
}

// LayOutFlows gives each job of jf that sets flow the group of its
// flow_id, with every such job's weight.
func (jf *JobFile) LayOutFlows() {
	groups := map[int]*FlowGroup{}
	for _, fj := range jf.Jobs {
		j := fj.Job
		if j.Flow == 0 {
			continue
		}
		g := groups[j.FlowID]
		if g == nil {
			g = &FlowGroup{}
			groups[j.FlowID] = g
		}
		g.weight += j.Flow
		j.FlowGroup = g
	}
}

// flowHeld reports that the job must wait before its next I/O: its share
// of the group's I/Os is above its share of the weight.
func (g *Generator) flowHeld() bool {
	f := g.j.FlowGroup
	if f.ios == 0 || f.weight == 0 {
		return false
	}
	return float64(g.flowIOs)/float64(f.ios) > float64(g.j.Flow)/float64(f.weight)
}

var flowOptions = []Option{
	{Name: "flow", Kind: KindInt, Min: 0, Max: 1 << 30, Field: "Coordination.Flow", WorkloadOnly: true,
		Help:     "the job's weight in its flow_id group: the group's jobs keep their I/O counts in the ratio of their weights (0: none)",
		intField: func(j *Job) *int { return &j.Flow }},
	{Name: "flow_id", Kind: KindInt, Min: 0, Max: 1 << 30, Field: "Coordination.FlowID", WorkloadOnly: true,
		Help:     "the flow group of the job's flow weight (default 0)",
		intField: func(j *Job) *int { return &j.FlowID }},
}
