#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's fresh-machine commands, proven where nothing else can help
# them: a new minimal Debian 12 root (debootstrap --variant=minbase) with
# only the README's prerequisite line installed, Recommends off, then
#
#   make deps && make demo     (ends with a comparison and reports/<run>/report.html)
#   make deps && make check    (ends with "N passed, 0 failed, N skipped")
#   make deps && make deb      (the Debian package: built, lintian without errors, then
#                               installed, used from / and purged: tests/deb-check.sh)
#
# in a clone of this repository's HEAD made inside the root. Both wall times
# are printed. After the demo, make check's kernel e2e use the demo's kernel
# cache (E2E_KERNEL_CACHE): the demo has just built the arm64 lab from nothing. The root is bind-mounted on itself (private), proc, sys and dev
# are mounted into it; at the end (also
# on failure or a signal) every process whose root is inside it is killed by
# PID, every mount below it is unmounted and the root is removed.
#
#   tests/fresh-root.sh [GOAL...]     GOAL: demo, check, check-fast, deb (default: demo check)
#
# Run as root (debootstrap, chroot, mount). Needs the network to Debian's
# mirror, which is taken from this machine's own apt sources.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
goals=${*:-demo check}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
[ "$(id -u)" = 0 ] || { echo "fresh-root: run as root (debootstrap, chroot, mount)" >&2; exit 1; }
for g in $goals; do
	case $g in demo|check|check-fast|deb) ;; *) echo "fresh-root: unknown goal '$g' (demo, check, check-fast, deb)" >&2; exit 2 ;; esac
done
if ! command -v debootstrap >/dev/null; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# The Debian mirror and suites this machine's apt uses (one-line or deb822 sources).
sources=$(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
mirror=$(cat $sources /dev/null | awk '
	/^deb[ \t]/ { u = ""; for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { u = $i; s = $(i + 1); break }
		if (u != "" && s == "bookworm") { print u; exit } }
	/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && u != "") { print u; exit } }')
[ -n "$mirror" ] || { echo "fresh-root: no Debian bookworm source in /etc/apt/sources.list*" >&2; exit 1; }

# A private work directory (mktemp: 0700, never a fixed path).
work=$(mktemp -d /var/tmp/idlelab-fresh.XXXXXX)
root=$work/root
cleanup() {
	local rc=$? p r m
	trap - EXIT INT TERM
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$root" | "$root"/*) kill -KILL "${p#/proc/}" 2>/dev/null || true ;; esac
	done
	sleep 0.5
	for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	if awk -v r="$root" 'index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
		echo "fresh-root: mounts left below $root; not removing it" >&2
	else
		rm -rf --one-file-system "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s)
echo "fresh-root: debootstrap --variant=minbase bookworm (mirror from this machine's apt sources)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 &
wait $! || { tail -n 20 "$work/debootstrap.log"; exit 1; }
echo "fresh-root: root made in $(($(date +%s) - t0)) s"
# the same apt sources as this machine (those whose keyring the new root has), no Recommends
rm -f "$root/etc/apt/sources.list"
for f in $sources; do
	keys=$(sed -n 's/.*[Ss]igned-[Bb]y[:=] *\([^] ]*\).*/\1/p' "$f")
	usable=1
	for k in $keys; do [ -e "$root$k" ] || usable=0; done
	[ $usable = 1 ] && cp "$f" "$root$f"
done
echo 'APT::Install-Recommends "0"; APT::Install-Suggests "0";' > "$root/etc/apt/apt.conf.d/99fresh-root"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# the root a mount point of its own, private: inside the chroot, unshare(1) makes "/" rprivate for a
# test's private mount namespace (the audit's and the command transport's e2e), which fails on a
# directory that is not a mount point ("cannot change root filesystem propagation")
mount --bind "$root" "$root"
mount --make-private "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
mkdir -p "$root/mnt/idlelab-src"
mount --bind -o ro "$src" "$root/mnt/idlelab-src"

# Everything below runs inside the root with a clean environment.
inroot() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "$1"
}
echo "fresh-root: the README's prerequisite line: apt-get install make git"
inroot 'apt-get update -qq && apt-get install -y -qq make git >/dev/null' 
inroot 'git config --global --add safe.directory /mnt/idlelab-src && git clone -q /mnt/idlelab-src /root/idlelab'
# make deps alone first, only to time it; the README's lines below run it again (a no-op then)
t=$(date +%s)
inroot 'cd /root/idlelab && make deps' > "$work/deps.log" 2>&1 &
wait $! || { tail -n 20 "$work/deps.log"; exit 1; }
tail -n 3 "$work/deps.log"
echo "fresh-root: make deps: $(($(date +%s) - t)) s"
final=""
for g in $goals; do
	t=$(date +%s)
	echo "fresh-root: make deps && make $g"
	# in the background, waited for: a signal runs the cleanup at once, not after the step
	# (deb: the package built with both cores, then installed, used from / and purged; no second test run)
	cmd="make deps && make $g"
	[ "$g" != deb ] || cmd="make deps && DEB_BUILD_OPTIONS=parallel=$(nproc) make deb && bash tests/deb-check.sh"
	# after the demo, the kernel e2e share its kernel cache: the demo has just built the arm64
	# lab from nothing (proven there); building the same kernel again in build/e2e-kernel-cache
	# proves nothing more and costs ten minutes. A check without the demo builds its own.
	case $g in check | check-fast) [ ! -e "$work/demo.rc" ] ||
		cmd="make deps && E2E_KERNEL_CACHE=\$(./idlelab paths | sed -n 's/^cache: *//p') make $g" ;;
	esac
	{ inroot "cd /root/idlelab && $cmd"; echo $? > "$work/$g.rc"; } 2>&1 | tee "$work/$g.log" &
	wait $!
	rc=$(cat "$work/$g.rc" 2>/dev/null || echo 1)
	echo "fresh-root: $cmd: exit $rc in $(($(date +%s) - t)) s"
	[ $rc = 0 ] || exit $rc
	case $g in
	demo)
		report=$(sed -n 's/^HTML report: //p' "$work/demo.log" | tail -n 1)
		if [ -z "$report" ] || [ ! -s "$root/root/idlelab/$report" ]; then
			echo "fresh-root: make demo printed no report, or '$report' is missing" >&2
			exit 1
		fi
		# the demo prints the key-metric verdicts as a reply carries them (idlelab tested-by)
		grep -q '^Key metrics (the decision family' "$work/demo.log" && grep -q '^Verdict: ' "$work/demo.log" ||
			{ echo "fresh-root: make demo printed no verdicts (the key metrics' block and the Verdict line)" >&2; exit 1; }
		echo "fresh-root: demo report: $report ($(wc -c < "$root/root/idlelab/$report") bytes)"
		;;
	deb)
		grep -E '^deb-check: ' "$work/deb.log" | tail -n 1
		;;
	check | check-fast)
		final=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/$g.log" | tail -n 1)
		# where the time went: the slowest programs (run-tests.sh times each).
		# sed '16,$d' reads to the end: head would exit early and, under
		# pipefail, sort's SIGPIPE (141) would fail a passing run.
		echo "fresh-root: the slowest tests of make $g:"
		sed -n 's/^\(ok  \|FAIL\) \([^ ]*\) .*; \([0-9][0-9]*\) s[;)].*/\3 \2/p' "$work/$g.log" | sort -rn | sed '16,$d' |
			sed 's/^/  /'
		;;
	esac
done
echo "fresh-root: all done in $(($(date +%s) - t0)) s"
[ -z "$final" ] || echo "$final"
