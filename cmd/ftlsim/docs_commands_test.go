//go:build unix

package main

// form is what a tier runs of a documented command.
type form int

const (
	short form = iota // the command with the entry's swaps applied
	full              // the command as documented
	skip              // nothing: the entry's why says why
)

// docEntry says how TestDocs runs one documented command that is too long
// (or cannot run) as it stands. The command is matched whole, with runs of
// spaces collapsed; a command with no entry runs as documented in both
// tiers.
type docEntry struct {
	doc  string   // the command as documented
	page string   // the Markdown file the entry is for ("": every file showing the command; an entry for the page goes first)
	swap []string // pairs: a piece of the command, and what the shortened form has instead
	def  form     // what the default tier runs
	long form     // what the long tier (FTLSIM_LONG=1) runs
	why  string   // why it is shortened or not run
	exit int      // the exit status the documentation gives it
	fio  bool     // reads fio's examples: runs only when FTLSIM_FIO_EXAMPLES names them (linked as fio/examples)
}

// Shortenings the table uses again and again.
const (
	// A quick review cannot be made shorter: 20 s to a minute even on the
	// smallest drive. The default tier leaves reviews to cli's tests of
	// the command (review_test.go).
	reviewSkip = "a quick review takes 20 s to a minute, even of one small drive"

	cap8  = " --capacity=8GiB"
	cap16 = " --capacity=16GiB"
)

// docCommands is the table of shortened and skipped commands. Keep it to
// what must be there: a command that runs in seconds as documented needs
// no entry. Shortened forms keep the command's shape (its drive, its
// options, its outputs) and cut what only costs time: capacity, run
// lengths, the number of points.
var docCommands = []docEntry{
	// README.md
	{doc: "go test ./... # all tests, default tier (about 4 minutes on two idle cores)", def: skip, long: skip,
		why: "the test suite itself"},
	{doc: "go run ./cmd/ftlsim --drive=bp4-240 --precondition=fill --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based",
		swap: []string{"--drive=bp4-240", "--drive=bp4-240" + cap16, "--runtime=60", "--runtime=2"}, def: short, long: full,
		why: "a 240 GB fill"},
	{doc: "go run ./cmd/ftlsim scenario consistency --drive=m4-64 --spare=25",
		swap: []string{"--spare=25", "--spare=25" + cap8 + " --time=30s"}, def: short, long: short,
		why: "2,000 s of random writes; the long tier runs it shortened too, to keep CI within its time"},
	{doc: "go run ./cmd/ftlsim review --drive=m4-64,bp4-60 --quick --out=review",
		def: skip, long: full, why: reviewSkip},
	{doc: "go run ./cmd/ftlsim sweep examples/sweeps/nvme-queues.yaml --out=results/nvme-queues",
		swap: []string{"go run ./cmd/ftlsim sweep examples/sweeps/nvme-queues.yaml", nvmeQueuesShort + " && go run ./cmd/ftlsim sweep nvme-queues.yaml"},
		def:  short, long: short, why: "16 points on a 64 GiB drive; the long tier runs the documented study from docs/studies.md"},

	{doc: "(cd examples/measure && . ./env.sh && DEV=/dev/nvme0n1 fio --output-format=json --output=consistency.json consistency.fio)", def: skip, long: skip,
		why: "runs fio on a real drive, as root, and overwrites it"},
	{doc: "go run ./cmd/ftlsim fit examples/measure --drive=bp4-240 --out=twin", def: skip, long: skip,
		why: "fits the measurements the line before makes on a real drive; the tests fit examples/fit/quick.yaml (docs/fit.md) and fio's own files (fit TestFioFixtures)"},
	{doc: "go run ./cmd/ftlsim scenario consistency --drive=twin/fitted.yaml --spare=25", def: skip, long: skip,
		why: "asks the twin the line before fits; the fitted description loads as a drive file (cli TestFitCommand)"},

	// docs/README.md
	{doc: `go build -o ftlsim ./cmd/ftlsim && export PATH="$PWD:$PATH"`, def: skip, long: skip,
		why: "the test has built ftlsim and put it first on the PATH"},

	// docs/calibration.md
	{doc: "go run ./examples/calibration # every preset at full size: about an hour on 2 cores", def: skip, long: skip,
		why: "an hour on two cores; its -quick form runs"},

	// docs/command.md
	{doc: "ftlsim --drive=generic-mlc --precondition=fill --rw=randwrite --bs=4k --iodepth=32 --runtime=2000 --time_based --norandommap --write_iops_log=consistency --log_avg_msec=1000 --output-format=json > consistency.json",
		swap: []string{"--drive=generic-mlc", "--drive=generic-mlc" + cap16, "--runtime=2000", "--runtime=5"}, def: short, long: short,
		why: "a 256 GiB fill and 2,000 s of random writes; the long tier runs it shortened too, to keep CI within its time"},

	{doc: "ftlsim --drive=mydrive.yaml --capacity=240GB --op=25 --gc=cost-benefit --rw=randrw --rwmixread=70 --bssplit=4k/60:64k/40 --random_distribution=zipf:0.9 --runtime=60 --time_based",
		swap: []string{"--runtime=60", "--runtime=5"}, def: short, long: full, why: "60 s of mixed I/O"},

	// docs/drives.md
	{doc: "ftlsim scenario sustained-write --drive=solidigm-p41-plus-2048",
		swap: []string{"--drive=solidigm-p41-plus-2048", "--drive=solidigm-p41-plus-2048 --capacity=128GiB --span=20"}, def: short, long: short,
		why: "writes 2 TB; the long tier runs it shortened too, to keep CI within its time"},

	// docs/fio.md
	{doc: "ftlsim run examples/jobs/fourcorners.fio --drive=generic-mlc --precondition=fill --output-format=json",
		swap: []string{"ftlsim run examples/jobs/fourcorners.fio --drive=generic-mlc", "sed 's/^runtime=30$/runtime=2/' examples/jobs/fourcorners.fio > fc.fio && ftlsim run fc.fio --drive=generic-mlc" + cap16},
		def:  short, long: full, why: "four 30 s jobs on a filled 256 GiB drive (the file's runtime overrides the command line's)"},
	{doc: "ftlsim run examples/jobs/mx500-dirty.fio --drive=mx500-1000",
		swap: []string{"ftlsim run examples/jobs/mx500-dirty.fio --drive=mx500-1000", "sed -e 's/^runtime=1800$/runtime=5/' -e 's/^startdelay=1800$/startdelay=5/' -e 's/^runtime=60$/runtime=2/' examples/jobs/mx500-dirty.fio > dirty.fio && ftlsim run dirty.fio --drive=mx500-1000 --capacity=128GiB"},
		def:  short, long: short, why: "30 minutes of random writes and 30 minutes idle on 1 TB: 65 s to three minutes"},
	{doc: "FIO_BS=4096 ftlsim run fio/examples/sprandom.fio --drive=bp4-240 # fio's SanDisk preconditioning",
		swap: []string{"--drive=bp4-240", "--drive=bp4-240" + cap16}, def: short, long: full, fio: true,
		why: "preconditions 240 GB"},
	{doc: "ftlsim run fio/examples/xnvme-compare.fio --section=default --ioengine=xnvme --drive=m4-256", def: full, long: full, fio: true},
	{doc: "FTLSIM_FIO_EXAMPLES=fio/examples go test ./cli -run TestFioExamples -v", def: skip, long: skip,
		why: "a test of its own, run by go test ./cli when FTLSIM_FIO_EXAMPLES is set"},

	// docs/library.md
	{doc: "go run ./examples/custompolicy", swap: []string{"go run ./examples/custompolicy", "go run ./examples/custompolicy -time=60s"},
		def: short, long: full, why: "600 s of random writes for each policy"},

	// docs/nand.md
	{doc: "ftlsim scenario sustained-write --drive=intel-660p-1024 --capacity=200GiB --fill=80",
		swap: []string{"--capacity=200GiB", "--capacity=128GiB"}, def: short, long: full, why: "writes 200 GiB"},

	// docs/performance.md
	{doc: "go test -run=NONE -bench='SteadyStateRandomWrite$' -benchtime=200000x ./sim/", def: skip, long: skip,
		why: "a benchmark: compiles the sim tests afresh in the copy and fills a 256 GiB drive before it measures (2 minutes); performance.md says how to compare builds"},

	// docs/reliability.md
	{doc: "ftlsim scenario power-loss --drive=bp4-240 # fill, random writes with a FLUSH every 256, cut at 10 s, read every block back",
		swap: []string{"--drive=bp4-240", "--drive=bp4-60 --capacity=8GiB"}, def: short, long: short,
		why: "fills, rewrites and reads back 240 GB: two and a half minutes; shortened to the line's 8-die drive at 8 GiB (15 to 60 s per GB of drive at 16 GiB on 32 dies)"},
	{doc: "ftlsim --drive=m4-256 --precondition=fill --rw=randwrite --iodepth=32 --runtime=60 --time_based --power_loss=20s,40s",
		swap: []string{"--drive=m4-256", "--drive=m4-256" + cap16, "--runtime=60", "--runtime=4", "--power_loss=20s,40s", "--power_loss=1s,2s"},
		def:  short, long: short, why: "a 256 GB fill; the long tier runs it shortened too, to keep CI within its time"},
	{doc: "ftlsim --drive=m4-64 --faults=wear=1,age=1y,rber_scale=100 --precondition=fill --size=1g --rw=randread --runtime=2 --time_based",
		def: full, long: full, exit: 1, why: "every read fails: EIO, exit status 1, as the page says"},
	{doc: "ftlsim scenario endurance --drive=m4-64 --quick=1 --chart=endurance.png # 35 to 50 s on two cores",
		swap: []string{"--drive=m4-64", "--drive=m4-64 --capacity=4GiB --max_life=2"}, def: short, long: short, why: "rounds until a 64 GB drive retires; the long tier runs it shortened too, to keep CI within its time"},

	// docs/fit.md
	{doc: "ftlsim fit examples/fit/quick.yaml --out=fit-quick",
		swap: []string{"--out=fit-quick", "--out=fit-quick --evaluations=12"}, def: short, long: full,
		why: "about 90 evaluations of the four corners on a 16 GiB drive (30 s of CPU)"},
	{doc: "ftlsim fit examples/fit/bp3.yaml --out=fit-bp3 --leave_one_out", def: skip, long: skip,
		why: "full-size consistency runs of 2,000 s, each fit many of them: see examples/fit/README.md for its time"},

	// docs/scenarios.md
	{doc: "ftlsim scenario consistency --drive=bp3-256 --spare=25",
		swap: []string{"--spare=25", "--spare=25" + cap16 + " --time=30s"}, def: short, long: short, why: "2,000 s of random writes on 256 GB; the long tier runs it shortened too, to keep CI within its time"},
	{doc: "ftlsim scenario trim-validation --drive=m4-256 --torture_time=30m --output-format=json > trim.json",
		swap: []string{"--drive=m4-256", "--drive=m4-256" + cap16, "--torture_time=30m", "--torture_time=1m --measure_time=5s"},
		def:  short, long: short, why: "a 30-minute torture of 256 GB; the long tier runs it shortened too, to keep CI within its time"},
	{doc: "ftlsim scenario sustained-write --drive=atlas-240 --fill=80 --idle=10m",
		swap: []string{"--drive=atlas-240", "--drive=atlas-240" + cap16}, def: short, long: full, why: "writes 240 GB"},
	{doc: "ftlsim review --drive=m4-64 --quick --endurance --out=review-m4 # about 20 s on two cores", def: skip, long: skip,
		why: reviewSkip + "; the long tier runs the README's review, and report's TestQuickReviewEndurance the endurance section (to keep CI within its time)"},
	{doc: "go run ./cmd/ftlsim review --drive=bp4-240,m4-256,atlas-240 --quick --jobs=2 --endurance --out=examples/review-quick",
		def: skip, long: skip,
		why: reviewSkip + "; three drives take 3 min 30 s (the long tier runs the README's and docs/scenarios.md's other reviews)"},
	{doc: "go run ./cmd/ftlsim review --drive=970-evo-plus-1000,intel-660p-1024,mx500-1000 --quick --jobs=2 --out=examples/review-today",
		def: skip, long: skip,
		why: reviewSkip + "; three drives take 2 min (the long tier runs the README's and docs/scenarios.md's other reviews)"},

	// docs/snapshots.md: the three commands share the drive's options.
	{doc: "ftlsim --drive=bp4-240 --precondition=torture:30m --save_state=bp4.state --prepare_only",
		swap: []string{"--drive=bp4-240", "--drive=bp4-240" + cap16, "torture:30m", "torture:1m"}, def: short, long: short,
		why: "a 240 GB fill and a 30-minute torture; cli TestStateBP4FullSize saves, loads and runs it at full size in the long tier"},
	{doc: "ftlsim --drive=bp4-240 --load_state=bp4.state --rw=randwrite --bs=4k --iodepth=32 --runtime=60 --time_based --output-format=json > w.json",
		swap: []string{"--drive=bp4-240", "--drive=bp4-240" + cap16, "--runtime=60", "--runtime=2"}, def: short, long: short,
		why: "the snapshot's drive (at full size: cli TestStateBP4FullSize)"},
	{doc: "ftlsim --drive=bp4-240 --load_state=bp4.state --rw=randread --iodepth=4 --randseed=7 --runtime=60 --time_based",
		swap: []string{"--drive=bp4-240", "--drive=bp4-240" + cap16, "--runtime=60", "--runtime=2"}, def: short, long: short,
		why: "the snapshot's drive (at full size: cli TestStateBP4FullSize)"},

	// docs/studies.md and examples/sweeps/README.md
	{doc: "ftlsim sweep examples/sweeps/nvme-queues.yaml --out=results/nvme-queues", page: "examples/sweeps/README.md",
		swap: []string{"ftlsim sweep examples/sweeps/nvme-queues.yaml", nvmeQueuesShort + " && ftlsim sweep nvme-queues.yaml"},
		def:  short, long: short, why: "16 points on a 64 GiB drive; the long tier runs the same study from docs/studies.md"},
	{doc: "ftlsim sweep examples/sweeps/op-dies.yaml --out=results/op-dies",
		swap: []string{"ftlsim sweep examples/sweeps/op-dies.yaml", opDiesShort + " && ftlsim sweep op-dies.yaml"}, def: short, long: short,
		why: "24 points of 2,000 s on 64 GiB: five and a half minutes at -j 2"},
	{doc: "ftlsim sweep examples/sweeps/nvme-queues.yaml --out=results/nvme-queues",
		swap: []string{"ftlsim sweep examples/sweeps/nvme-queues.yaml", nvmeQueuesShort + " && ftlsim sweep nvme-queues.yaml"},
		def:  short, long: full, why: "16 points on a 64 GiB drive"},
	{doc: "ftlsim sweep examples/sweeps/dies.yaml --out=results/dies",
		swap: []string{"ftlsim sweep examples/sweeps/dies.yaml", diesShort + " && ftlsim sweep dies.yaml"}, def: short, long: short,
		why: "20 points of 300 s on 64 GiB: nine minutes at -j 2"},
	// docs/scenarios.md: the tenants and hot/cold scenarios (200-600 s of
	// writes on 64 GiB; sim's TestFourTenants and TestHotColdScenario run
	// them at length)
	{doc: "ftlsim scenario tenants --drive=generic-nvme-fdp --capacity=64GiB --time=200s --warmup=200s --handles=4 # a handle per tenant",
		swap: []string{"--time=200s --warmup=200s", "--time=1s --warmup=0s --fill=0"}, def: short, long: short, why: tenantsWhy},
	{doc: "ftlsim scenario tenants --drive=examples/fdp/no-fdp.yaml --capacity=64GiB --time=200s --warmup=200s # FDP off",
		swap: []string{"--time=200s --warmup=200s", "--time=1s --warmup=0s --fill=0"}, def: short, long: short, why: tenantsWhy},
	{doc: "ftlsim scenario tenants --drive=examples/fdp/quarter.yaml --capacity=16GiB --time=200s --warmup=200s --bs=4k # one tenant alone (and 16k, 64k, 256k)",
		swap: []string{"--time=200s --warmup=200s", "--time=1s --warmup=0s --fill=0"}, def: short, long: short, why: tenantsWhy},
	{doc: "ftlsim scenario hot-cold --drive=generic-nvme-fdp --capacity=64GiB --op=28 --handles=2 --time=300s --warmup=600s # --handles=1: mixed",
		swap: []string{"--time=300s --warmup=600s", "--time=1s --warmup=0s --fill=0"}, def: short, long: short, why: tenantsWhy},
	// docs/fio.md
	{doc: "ftlsim run cli/testdata/fio-examples/uring-cmd-fdp.fio --drive=generic-nvme-fdp --output-format=json # device.fdp.handles: 0-3, 4-5 and 6 take the three jobs' writes",
		def: skip, long: skip, why: "1,000 s of simulated time on 256 GiB; cli's TestFioFDPExamples runs the file capped at 2 s"},
	{doc: "ftlsim sweep examples/sweeps/fdp-tenants.yaml --out=results/fdp-tenants",
		swap: []string{"ftlsim sweep examples/sweeps/fdp-tenants.yaml", fdpTenantsShort + " && ftlsim sweep fdp-tenants.yaml"}, def: short, long: short,
		why: "12 points of a 64 GiB fill and 400 s of writes: ten minutes at -j 1"},
	// docs/drives.md
	{doc: "go run ./examples/znstax # 64 GiB of flash: a few minutes", def: skip, long: skip,
		why: "five drives, three drive writes each, on 64 GiB: the quicker form documented beside it runs, and examples/znstax TestCompare checks its figures (to keep CI within its time)"},
	// examples/sweeps/README.md
	{doc: "ftlsim sweep examples/sweeps/zones.yaml --out=results/zones",
		swap: []string{"ftlsim sweep examples/sweeps/zones.yaml", zonesShort + " && ftlsim sweep zones.yaml"}, def: short, long: short,
		why: "40 points of 60 s on 16 GiB: a minute at -j 1; examples/sweeps TestZonesStudy runs four points at length"},
}

// The shortened studies: the example study files with smaller drives,
// shorter runs and fewer values, written beside them under the same
// names as the documented ones.
const (
	opDiesShort = "sed -e 's/capacity: 64GiB/capacity: 4GiB/' -e 's/time: 2000s/time: 5s/' -e 's/op: \\[7, 12, 25, 28\\]/op: [7, 28]/' " +
		"-e 's/nand.geometry.dies: \\[8, 16, 32\\]/nand.geometry.dies: [8, 16]/' examples/sweeps/op-dies.yaml > op-dies.yaml"
	diesShort = "sed -e 's/capacity: 64GiB/capacity: 16GiB/' -e 's/time: 300s/time: 5s/' -e 's/nand.geometry.dies: \\[8, 16, 32, 64, 128\\]/nand.geometry.dies: [8, 16]/' " +
		"-e 's/gc_streams: \\[4, 0\\]/gc_streams: [0]/' examples/sweeps/dies.yaml > dies.yaml"
	fdpTenantsShort = "sed -e 's/warmup: 200s/warmup: 0s/' -e 's/time: 200s/time: 1s\\n  fill: 0/' -e 's/handles: \\[0, 2, 4\\]/handles: [0, 4]/' examples/sweeps/fdp-tenants.yaml > fdp-tenants.yaml"
	zonesShort      = "sed -e 's/runtime: 60/runtime: 1/' -e 's/zone_size: \\[32MiB, 64MiB, 256MiB, 1GiB\\]/zone_size: [64MiB, 256MiB]/' " +
		"-e 's/max_open: \\[1, 2, 4, 8, 16\\]/max_open: [1, 4]/' examples/sweeps/zones.yaml > zones.yaml"
	tenantsWhy      = "200 to 600 s of writes on 64 GiB; sim's TestFourTenants and TestHotColdScenario run them at length"
	nvmeQueuesShort = "sed -e 's/capacity: 64GiB/capacity: 16GiB/' -e 's/runtime: 2$/runtime: 0.2/' examples/sweeps/nvme-queues.yaml > nvme-queues.yaml"
)
