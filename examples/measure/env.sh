# Defaults for the variables the measurement kit's job files read.
#
# fio replaces ${NAME} in a job file with the environment variable NAME and
# has no defaults: an unset variable becomes empty and fio refuses the
# option ("failed parsing runtime="). Source this file first; a variable
# already set keeps its value:
#
#   . ./env.sh
#   DEV=/dev/nvme0n1 fio --output-format=json --output=fill.json fill.fio
#
# DEV (the device, e.g. /dev/nvme0n1 or /dev/sdb) has no default on
# purpose: every job file overwrites it.

# fio's I/O engine for every job, and for the TRIM step of trim.fio.
export ENGINE="${ENGINE:-libaio}"
export TRIM_ENGINE="${TRIM_ENGINE:-$ENGINE}"

# SIZE: the part of the drive the whole-drive jobs cover (fill, sequential
# tests, torture, consistency, TRIM). 75% emulates 25 % spare area.
export SIZE="${SIZE:-100%}"
# SPAN: the LBA span of the 4 KiB random tests (the reviews' 8 GB).
export SPAN="${SPAN:-8g}"

# Durations, in seconds.
export RAND_TIME="${RAND_TIME:-180}"       # each four-corners random test (3 min)
export SEQ_TIME="${SEQ_TIME:-60}"          # each 128 KiB sequential test (1 min)
export QD_TIME="${QD_TIME:-60}"            # each point of the queue-depth sweep
export CONSIST_TIME="${CONSIST_TIME:-2000}" # the consistency run's random writes
export TORTURE_TIME="${TORTURE_TIME:-1800}" # the TRIM test's torture (30 min)
export IDLE_TIME="${IDLE_TIME:-30}"        # idle after the TRIM, before measuring
