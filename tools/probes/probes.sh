#!/usr/bin/env bash
# Adversarial probes of the ftlsim command (issue 23): options, drive
# descriptions, job files, traces and snapshots a careful user or a
# hostile input might give, each run under a 3 GiB address-space limit and
# a 30 s wall-clock bound. Every probe must end with exit 0 or 2 and, on
# exit 2, one line of error; one that must be refused (an overflow, a NaN)
# must exit 2. The library's misuse probes are the sim package's
# TestLibraryRefusesMisuse.
#
# Usage: tools/probes/probes.sh [FTLSIM]   (default: builds ./cmd/ftlsim)
# Prints one line per failing probe and the counts; exits 1 if any failed.
set -u
cd "$(dirname "$0")/../.."
bin=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
	bin=$work/ftlsim
	go build -o "$bin" ./cmd/ftlsim || exit 1
fi
d="--drive=generic-mlc-small --capacity=4GiB"

# Inputs.
base=controller/presets/generic-mlc-small.yaml
sed 's/channels: 4/channels: 4.5/; s/^name: .*/name: p45/' $base >"$work/c45.yaml"
{ sed 's/^name: .*/name: p2/' $base; echo '---'; echo 'capacity: 1GiB'; } >"$work/two.yaml"
printf 'fio version 3 iolog\n0 f add\n0 f open\n0 f write 0 4096\n10000000000000 f write 4096 4096\n' >"$work/v3gap.log"
printf 'fio version 2 iolog\nf add\nf open\nf write 0 4096\nf wait 1000000000000000\nf write 4096 4096\n' >"$work/v2wait.log"
printf 'fio version 2 iolog\nf add\nf write 0 4096\nf wait nan\nf write 0 4096\n' >"$work/v2nan.log"
printf 'fio version 3 iolog\nNaN f write 0 4096\n' >"$work/v3nan.log"
printf '0,36028797018963968,4096,w,0.0\n' >"$work/spc-big.csv"
printf '0,9223372036854775807,4096,w,0.0\n' >"$work/spc-max.csv"
printf '0,100,4096,w,NaN\n' >"$work/spc-nan.csv"
printf '0 0 8 4611686018427387904 0\n' >"$work/disksim-size.txt"
printf '0 0 36028797018963968 8 0\n' >"$work/disksim-lba.txt"
printf 'nan 0 4096 4096 0\n' >"$work/heimdall-nan.txt"
printf '  8,0 0 1 NaN 1 Q W 8 + 8 [k]\n' >"$work/blk-nan.txt"
printf '  8,0 0 1 0.5 1 Q W 36028797018963968 + 8 [k]\n' >"$work/blk-big.txt"
: >"$work/empty.txt"
printf '[a]\nrw=randwrite\nthinktime=9223372036854775807\nnumber_ios=3\n' >"$work/think.fio"
printf '[a]\nrw=randwrite\nbssplit=4k/50:8k/NaN\nnumber_ios=3\n' >"$work/nan.fio"
printf '[a]\nrw=randwrite\nsize=99999999999999999999\n' >"$work/size.fio"
"$bin" $d --prepare_only --save_state="$work/s.state" >/dev/null 2>&1
cp "$work/s.state" "$work/bad.state" && printf 'garbage' | dd of="$work/bad.state" bs=1 seek=4096 conv=notrunc 2>/dev/null

# Probes: "must" (exit 2 required) or "may" (0 or 2), then the arguments.
probes=(
	"may|$d --rw=randwrite --bs=4k --iodepth=4 --runtime=1 --time_based --rate=10G"
	"may|$d --rw=randwrite --bs=4k --iodepth=4 --runtime=1 --time_based --rate=1G"
	"may|$d --rw=randwrite --number_ios=3 --thinktime=9000000000000"
	"must|$d --rw=randwrite --number_ios=3 --thinktime=9223372036854775"
	"must|$d --rw=randwrite --number_ios=3 --thinktime=9223372036854775807"
	"must|$d --rw=randwrite --number_ios=3 --bssplit=4k/50:8k/NaN"
	"must|$d --rw=randwrite --number_ios=3 --percentile_list=99:NaN"
	"must|$d --rw=randwrite --number_ios=3 --random_distribution=zipf:NaN"
	"must|$d --rw=randwrite --number_ios=3 --group_reporting=bogus"
	"must|$d --rw=randwrite --number_ios=3 --buffer_pattern=0x"
	"must|$d --rw=randwrite --number_ios=3 --runtime=1e400"
	"must|$d --rw=randwrite --number_ios=3 --size=1e30"
	"must|$d --rw=randwrite --number_ios=3 --iodepth=99999999999999999999"
	"must|--drive=$work/c45.yaml --number_ios=3"
	"must|--drive=$work/two.yaml --number_ios=3"
	"may|replay $work/v3gap.log $d"
	"may|replay $work/v2wait.log $d"
	"must|replay $work/v2nan.log $d"
	"must|replay $work/v3nan.log $d"
	"must|replay $work/spc-big.csv --format=spc --beyond=reject $d"
	"must|replay $work/spc-max.csv --format=spc $d"
	"must|replay $work/spc-nan.csv --format=spc $d"
	"must|replay $work/disksim-size.txt --format=disksim $d"
	"must|replay $work/disksim-lba.txt --format=disksim --beyond=reject $d"
	"must|replay $work/heimdall-nan.txt --format=heimdall $d"
	"must|replay $work/blk-nan.txt --format=blkparse $d"
	"must|replay $work/blk-big.txt --format=blkparse --beyond=reject $d"
	"must|replay $work/empty.txt --format=spc $d"
	"must|run $work/think.fio $d"
	"must|run $work/nan.fio $d"
	"must|run $work/size.fio $d"
	"must|$d --load_state=$work/bad.state --rw=randread --number_ios=10"
	"may|$d --load_state=$work/s.state --rw=randread --number_ios=10"
	"may|-h"
)
total=0 panics=0 ooms=0 overflows=0 bad=0
for p in "${probes[@]}"; do
	want=${p%%|*} args=${p#*|}
	total=$((total + 1))
	# shellcheck disable=SC2086 # the arguments are split on purpose
	timeout 30 prlimit --as=$((3 << 30)) "$bin" $args >"$work/out" 2>"$work/err"
	code=$?
	lines=$(wc -l <"$work/err")
	if grep -q 'out of memory' "$work/err" || [ $code -eq 124 ] || [ $code -eq 137 ]; then
		ooms=$((ooms + 1)); echo "OOM or timeout ($code): $args"
	elif grep -q '^panic:\|^goroutine \|fatal error' "$work/err"; then
		panics=$((panics + 1)); echo "panic: $args"
	elif [ "$want" = must ] && [ $code -eq 0 ]; then
		overflows=$((overflows + 1)); echo "accepted silently: $args"
	elif [ $code -ne 0 ] && { [ $code -ne 2 ] || [ "$lines" -ne 1 ]; }; then
		bad=$((bad + 1)); echo "exit $code with $lines lines: $args: $(head -c 300 "$work/err")"
	fi
done
echo "probes $total: panics $panics, out of memory $ooms, silent overflows $overflows, other failures $bad"
go test ./sim -run 'TestLibraryRefusesMisuse|TestLoadStateRefuses' -count=1 >/dev/null 2>&1
lib=$?
[ $lib -eq 0 ] && echo "library misuse probes: pass" || echo "library misuse probes: FAIL"
[ $((panics + ooms + overflows + bad + lib)) -eq 0 ]
