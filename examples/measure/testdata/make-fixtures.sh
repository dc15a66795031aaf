#!/bin/sh
# Makes the fixtures in testdata/fio-VERSION/: one short run of every job
# file of the kit by real fio, against a 6 GiB regular file instead of a
# drive. The job files are used unchanged; only the variables differ from
# a real run (see ../README.md): short times, the jobs over 2 GiB of the
# file (the sustained write over all 6 GiB, so that its bandwidth log has
# a few lines). A regular file cannot be trimmed (fio fails with error 25:
# BLKDISCARD on a file), so the TRIM step uses fio's null engine, which is
# also why SIZE is a size here (the null engine has no file size for a
# percentage). Needs fio and 6 GiB free in /tmp; takes about three minutes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kit=$(dirname "$here")
out="$here/$(fio --version)"
img=${IMG:-/tmp/measure/dev.img}
mkdir -p "$out" "$(dirname "$img")"
rm -f "$img"
fallocate -l 6G "$img"
export DEV="$img" TRIM_ENGINE=null SPAN=256m RAND_TIME=3 SEQ_TIME=2 \
	QD_TIME=2 CONSIST_TIME=20 TORTURE_TIME=5 IDLE_TIME=2
. "$kit/env.sh"
cd "$out"
rm -f ./*.json ./*.log
for f in fill fourcorners qdsweep consistency sustained trim; do
	size=2g
	if [ "$f" = sustained ]; then size=6g; fi
	SIZE=$size fio --output-format=json --output="$f.json" "$kit/$f.fio"
done
rm -f "$img"
