#!/bin/sh
# The op-dies study in three shards with GNU parallel (on one machine, or
# across machines with parallel's --sshlogin and a shared directory), then
# the shards merged into one table:
parallel -j 3 ftlsim sweep examples/sweeps/op-dies.yaml --out=results/op-dies --resume -j 1 --shard={}/3 ::: 0 1 2 && ftlsim sweep merge results/op-dies
