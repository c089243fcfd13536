#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: 100 idle snapshots of this machine over loopback SSH with
# idlelab (one connection, one exec per snapshot) against the ways people do
# it by hand: `ssh host cat FILE` per file, and one `ssh host grep -r ...`
# per snapshot. Target: >= 10x faster than ssh-per-file, not slower than
# one-ssh-per-snapshot.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
. "$IL_SRCDIR/tests/e2e/sshd.sh"
SNAP=${SSHSNAP:-build/release/tests/sshsnap}
N=100
per_idlelab=$("$SNAP" "$HOSTS_DIR" lab1 $N) || { echo "bench ssh: sshsnap failed"; exit 1; }
# the files one snapshot reads: the path of each dump line (up to the ':' after its last '/', so
# powercap zone names with ':' stay whole and timer_list's "now at" value is cut off)
files=$($SSH_CMD "$(cat "$IL_SRCDIR/runners/snapshot.sh")" | sed -E 's#^(.*/[^:/]*):.*$#\1#' | sort -u)
nfiles=$(echo "$files" | wc -l)
# ssh per file: 2 snapshots are enough to time it (it is slow), scaled per snapshot
t0=$(date +%s.%N)
for _ in 1 2; do for f in $files; do $SSH_CMD cat "$f" >/dev/null; done; done
t1=$(date +%s.%N)
per_file=$(echo "($t1 - $t0) / 2" | bc -l)
# one ssh + grep -r per snapshot, 20 snapshots
script=$(cat "$IL_SRCDIR/runners/snapshot.sh")
t0=$(date +%s.%N)
for _ in $(seq 20); do $SSH_CMD "$script" >/dev/null; done
t1=$(date +%s.%N)
per_grep=$(echo "($t1 - $t0) / 20" | bc -l)
printf 'bench ssh: %d snapshots over loopback SSH (%d sysfs files each)\n' $N "$nfiles"
printf '  idlelab (one connection, one exec per snapshot): %8.2f ms/snapshot\n' "$(echo "$per_idlelab * 1000" | bc -l)"
printf '  ssh + cat per file:                             %8.2f ms/snapshot  (idlelab %.1fx faster; target >= 10x)\n' \
	"$(echo "$per_file * 1000" | bc -l)" "$(echo "$per_file / $per_idlelab" | bc -l)"
printf '  one ssh + grep -r per snapshot:                 %8.2f ms/snapshot  (idlelab %.1fx faster; target >= 1x)\n' \
	"$(echo "$per_grep * 1000" | bc -l)" "$(echo "$per_grep / $per_idlelab" | bc -l)"
