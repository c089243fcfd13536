#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write, as a one-patch mbox, one of idlelab's example changes to the menu
# governor (drivers/cpuidle/governors/menu.c), made here against the tree the
# kernel stage imports (a Debian linux-source tarball), not copied from a thread:
#
#   polling-threshold  seed 002's question ("cpuidle: menu: Use residency
#                      threshold in polling state override decisions"): menu's
#                      rule that takes the first non-polling state over POLL
#                      whenever the next timer is beyond its target residency
#                      also requires that residency to be below
#                      RESIDENCY_THRESHOLD_NS (15 us; 6.1 has no such constant,
#                      so it is defined). On a table like a pseries guest's
#                      (POLL + one deep state, 10/100 us) menu then polls for
#                      short predicted idles instead of entering the deep state.
#                      Against 6.1: 6.12.118 already has it (a stable backport).
#   no-polling-threshold  the same question from the other side, against 6.12:
#                      the threshold taken out of the polling override again,
#                      so that menu enters the deep state for short idles as
#                      6.1 does.
#   force-stop-tick    a deliberate regression: menu always asks to stop the
#                      tick (*stop_tick = true), shallow state or not, so the
#                      idle trace's share of tick-stopped entries in shallow
#                      states (docs/formats.md "idle.trace") must find it worse.
#                      6.1 and 6.12.
#
#   examples/patches/menu.sh CHANGE OUT.mbox [TARBALL]
#
# TARBALL: a Debian linux-source tarball (default: /usr/src/linux-source-6.1.tar.xz for
# polling-threshold, /usr/src/linux-source-6.12.tar.xz, the lab's default tree, otherwise).
set -eu
change=${1:?usage: $0 polling-threshold|no-polling-threshold|force-stop-tick OUT.mbox [TARBALL]}
out=${2:?usage: $0 CHANGE OUT.mbox [TARBALL]}
case $change in
polling-threshold) tarball=${3:-/usr/src/linux-source-6.1.tar.xz} ;;
*) tarball=${3:-/usr/src/linux-source-6.12.tar.xz} ;;
esac
f=drivers/cpuidle/governors/menu.c
case $change in
polling-threshold)
	prog='
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
	END { if (!c || !p) exit 1 }'
	check='RESIDENCY_THRESHOLD_NS &&'
	msg='cpuidle: menu: Use residency threshold in polling state override decisions

Only take the first non-polling state over POLL when its target residency
is below RESIDENCY_THRESHOLD_NS: on a platform with one polling state and
one deep state whose residency is far above that (a pseries guest: snooze
and CEDE), entering the deep state for a short predicted idle costs more
than it saves. (idlelab'"'"'s example, after the question of a linux-pm thread.)'
	;;
no-polling-threshold)
	prog='
	/^\t\t    s->target_residency_ns < RESIDENCY_THRESHOLD_NS &&$/ { n++; next }
	{ print }
	END { if (n != 1) exit 1 }'
	check='-		    s->target_residency_ns < RESIDENCY_THRESHOLD_NS &&'
	msg='cpuidle: menu: Drop the residency threshold from the polling state override

Take the first non-polling state over POLL whenever the next timer is
beyond its target residency and its exit latency is within the predicted
idle duration, whatever that residency, as before the threshold came in.
(idlelab'"'"'s example: the residency threshold of seed 002'"'"'s thread, which
6.12 carries, taken out again, so that its effect can be measured on the
tree that has it.)'
	;;
force-stop-tick)
	# both of menu_select()'s assignments: the early return's and the "don't stop the tick" branch's
	prog='
	/^\t+\*stop_tick = / { sub(/= .*/, "= true;"); n++ }
	{ print }
	END { if (n != 2) exit 1 }'
	check='*stop_tick = true;'
	msg='cpuidle: menu: Always stop the tick

Ask to stop the tick on every idle entry, whatever the state selected and
the predicted idle duration. (idlelab'"'"'s example of a regression: the tick
is then stopped while shallow states are entered, which the idle trace
shows and compare must find worse.)'
	;;
*)
	echo "$0: unknown change '$change' (polling-threshold, no-polling-threshold, force-stop-tick)" >&2
	exit 2 ;;
esac
mkdir -p "$(dirname "$out")"
[ -f "$tarball" ] || { echo "$0: $tarball is missing (make deps installs linux-source-6.1 and 6.12)" >&2; exit 1; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
top=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
mkdir -p "$w/$(dirname $f)"
tar -xJOf "$tarball" "$top/$f" > "$w/$f"
cd "$w"
g() { git -c user.name="idlelab example" -c user.email=example@idlelab.invalid -c commit.gpgsign=false "$@"; }
g init -q . && g add "$f" && g commit -q -m base
awk "$prog" "$f" > "$f.new" || { echo "$0: $f of $tarball is not the menu.c that $change is written for" >&2; exit 1; }
mv "$f.new" "$f"
printf '%s\n' "$msg" | g commit -q -a -F -
cd - >/dev/null
(cd "$w" && g format-patch -q --stdout -1) > "$out"
grep -qF -- "$check" "$out"
