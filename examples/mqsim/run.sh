#!/bin/sh
# run.sh MQSIM FTLSIM [1m|8m] [PAIRS] [FTLSIM OPTIONS...]: MQSim and ftlsim on
# the same job, in alternating pairs, each under /usr/bin/time -v; prints
# wall time and peak resident memory of each run; options after PAIRS go to
# ftlsim (--compact_map=1). See README.md.
set -eu
mqsim=$1 ftlsim=$2 job=${3:-1m} pairs=${4:-3}
shift $(($# < 4 ? $# : 4))
here=$(cd "$(dirname "$0")" && pwd)
case $job in
1m) wl=workload.xml n=1000000 ;;
8m) wl=workload-8m.xml n=8000000 ;;
*) echo "run.sh: job $job, allowed 1m or 8m" >&2; exit 2 ;;
esac
work=$(mktemp -d)
cp "$here/ssdconfig.xml" "$here/$wl" "$work/"
cd "$work"
show() { # label timefile
	wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$2")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$2")
	echo "$1 wall $wall peak RSS ${rss} KiB"
}
i=1
while [ "$i" -le "$pairs" ]; do
	/usr/bin/time -v -o mqsim.time "$mqsim" -i ssdconfig.xml -w "$wl" < /dev/null > mqsim.out 2>&1
	show "pair $i MQSim " mqsim.time
	/usr/bin/time -v -o ftlsim.time "$ftlsim" --drive=generic-mlc --capacity=32GiB --op=8.1 --gc=greedy \
		--precondition=fill --rw=randwrite --bs=4k --iodepth=32 --number_ios=$n --norandommap "$@" > ftlsim.out 2>&1
	show "pair $i ftlsim" ftlsim.time
	grep 'write amplification' ftlsim.out | sed 's/^ */        ftlsim: /'
	i=$((i + 1))
done
echo "outputs in $work"
