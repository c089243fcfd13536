#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write, as a one-patch mbox, the change seed 002 asks about ("cpuidle: menu:
# Use residency threshold in polling state override decisions"), made here
# against Linux 6.1's menu.c rather than copied from the thread: menu's rule
# that takes the first non-polling state over POLL whenever the next timer is
# beyond its target residency also requires that residency to be below
# RESIDENCY_THRESHOLD_NS (15 us; 6.1 has no such constant, so it is defined).
# On a table like a pseries guest's (POLL + one deep state, 10/100 us) menu
# then polls for short predicted idles instead of entering the deep state.
#
#   examples/patches/menu-polling-threshold.sh OUT.mbox [TARBALL]
#
# TARBALL: Debian's linux-source-6.1 (default /usr/src/linux-source-6.1.tar.xz).
# The patch applies to that tree (the kernel stage imports the same tarball).
set -eu
out=${1:?usage: $0 OUT.mbox [TARBALL]}
mkdir -p "$(dirname "$out")"
tarball=${2:-/usr/src/linux-source-6.1.tar.xz}
f=drivers/cpuidle/governors/menu.c
[ -f "$tarball" ] || { echo "$0: $tarball is missing (apt-get install linux-source-6.1)" >&2; exit 1; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
top=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
mkdir -p "$w/$(dirname $f)"
tar -xJOf "$tarball" "$top/$f" > "$w/$f"
cd "$w"
g() { git -c user.name="idlelab example" -c user.email=example@idlelab.invalid -c commit.gpgsign=false "$@"; }
g init -q . && g add "$f" && g commit -q -m base
awk '
	{ print }
	/^#define BUCKETS 12$/ && !c {
		print ""
		print "/* A physical state this much deeper than polling is not worth it for a short idle */"
		print "#define RESIDENCY_THRESHOLD_NS\t(15 * NSEC_PER_USEC)"
		print ""
		c = 1
	}
	/^\t\t\tif \(\(drv->states\[idx\]\.flags & CPUIDLE_FLAG_POLLING\) &&$/ && !p {
		print "\t\t\t    s->target_residency_ns < RESIDENCY_THRESHOLD_NS &&"
		p = 1
	}
	END { if (!c || !p) exit 1 }' "$f" > "$f.new" || { echo "$0: $f does not look like 6.1's menu.c" >&2; exit 1; }
mv "$f.new" "$f"
g commit -q -a -F - <<'MSG'
cpuidle: menu: Use residency threshold in polling state override decisions

Only take the first non-polling state over POLL when its target residency
is below RESIDENCY_THRESHOLD_NS: on a platform with one polling state and
one deep state whose residency is far above that (a pseries guest: snooze
and CEDE), entering the deep state for a short predicted idle costs more
than it saves. (idlelab's example, after the question of a linux-pm thread.)
MSG
cd - >/dev/null
(cd "$w" && g format-patch -q --stdout -1) > "$out"
grep -q 'RESIDENCY_THRESHOLD_NS &&' "$out"
