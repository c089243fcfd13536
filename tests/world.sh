#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a command in a cpuidle world of its own: a private mount namespace in
# which /sys/devices/system/cpu tells another story than this machine's.
#
#   tests/world.sh WORLD CMD [ARG...]
#
# WORLD
#   real      this machine as it is (no namespace; so a caller can name the
#             world it wants whatever it is)
#   none      current_driver "none", as a KVM/TCG guest without a cpuidle
#             driver has it: the captured cpuidle directory of a real
#             driver-none VM (tests/fixtures/sysfs/x86-vm-no-idle-states.txt)
#             bind-mounted over /sys/devices/system/cpu/cpuidle, and every
#             per-CPU cpuidle directory hidden under an empty read-only tmpfs
#             (an empty directory reads as "no states", as the kernel's
#             absent one does). Everything else is this machine's real sysfs.
#   haltpoll  a stand-in for a KVM guest with the haltpoll driver (POLL +
#             "haltpoll idle"; governors ladder menu haltpoll), for a
#             developer whose machine has no driver: the captured tree
#             (tests/fixtures/sysfs/kvm-haltpoll.txt) bind-mounted over
#             /sys/devices/system/cpu, its usage/time counters advanced from
#             this machine's real per-CPU idle time (/proc/stat) every 10 ms.
#             Plain files, not sysfs: a governor written there changes
#             nothing in the kernel. Not used by `make check`; for finding
#             expectations that hold in one world only.
#   blind1    this machine's sysfs as it is, but its tracing does not see
#             CPU 1's idle entries, as on a KVM guest whose CPU 1 enters
#             idle without power:cpu_idle firing (issue #44): a watcher
#             writes "cpu_id != 1" into the cpu_idle and cpu_idle_miss
#             filters of each idlelab tracefs instance as it is made, so
#             sched_switch and the other events of CPU 1 stay, and its
#             counters move. WORLD_BLIND_CPU=1 tells the tests. tracefs is
#             mounted in the world's own mount namespace when it is not.
#
# Exit status: CMD's; 77 (skip) with the reason on stderr where the world
# cannot be made here (not root, no unshare, a mount refused).
set -u
[ $# -ge 2 ] || { echo "usage: tests/world.sh real|none|haltpoll|blind1 CMD [ARG...]" >&2; exit 2; }
world=$1
shift
[ "$world" = real ] && exec "$@"
case $world in none|haltpoll|blind1) ;; *) echo "world.sh: unknown world '$world' (real, none, haltpoll, blind1)" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
FIX=$here/fixtures/sysfs
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	echo "world.sh: the '$world' world needs root and unshare(1) (a private mount namespace)" >&2
	exit 77
fi
root=$(mktemp -d "${TMPDIR:-/tmp}/idlelab-world.XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
trap 'exit 130' INT TERM HUP

# materialize DUMP DIR: a `grep -r .` dump as files below DIR (lib.sh's, without its powercap rule)
materialize() {
	awk -v root="$2" '{
		p = index($0, ":"); f = root substr($0, 1, p - 1); d = f; sub(/\/[^\/]*$/, "", d)
		if (!(d in made)) { system("mkdir -p \"" d "\""); made[d] = 1 }
		print substr($0, p + 1) >> f; close(f)
	}' "$1"
}

if [ "$world" = blind1 ]; then
	grep -qw tracefs /proc/filesystems || { echo "world.sh: the blind1 world needs tracefs in this kernel" >&2; exit 77; }
	# shellcheck disable=SC2016
	WORLD_BLIND_CPU=1 WORLD_DIR=$root unshare -m --propagation private sh -c '
		set -e
		[ -d /sys/kernel/tracing/instances ] || [ -d /sys/kernel/debug/tracing/instances ] ||
			mount -t tracefs nodev /sys/kernel/tracing
		python3 - <<"PY" &
import os, time
roots = [r for r in ("/sys/kernel/tracing/instances", "/sys/kernel/debug/tracing/instances") if os.path.isdir(r)][:1]
seen = set(os.listdir(roots[0])) if roots else set()   # instances made before the world are not its business
open(os.path.join(os.environ["WORLD_DIR"], "ready"), "w").close()
end = time.monotonic() + 3600
while os.getppid() != 1 and time.monotonic() < end:
    for r in roots:
        for n in os.listdir(r):
            if not n.startswith("idlelab-") or n in seen:
                continue
            done = True
            for e in ("cpu_idle", "cpu_idle_miss"):
                f = os.path.join(r, n, "events", "power", e, "filter")
                try:
                    with open(f, "w") as fh:
                        fh.write("cpu_id != 1\n")
                except FileNotFoundError:
                    done = done and e == "cpu_idle_miss" and os.path.isdir(os.path.join(r, n, "events"))
                except OSError:
                    done = False
            if done:
                seen.add(n)
    time.sleep(0.0005)
PY
		watcher=$!
		# the command starts once the watcher has listed the instances that are not its business
		i=0
		while [ ! -e "$WORLD_DIR/ready" ] && kill -0 $watcher 2>/dev/null && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
		[ -e "$WORLD_DIR/ready" ] || { echo "world.sh: the blind1 watcher did not start" >&2; exit 77; }
		rc=0
		"$@" || rc=$?
		kill $watcher 2>/dev/null
		exit $rc' blind1 "$@"
	rc=$?
elif [ "$world" = none ]; then
	grep '^/sys/devices/system/cpu/cpuidle/' "$FIX/x86-vm-no-idle-states.txt" > "$root/dump.txt"
	materialize "$root/dump.txt" "$root/tree"
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		set -e
		mount --bind "$0/tree/sys/devices/system/cpu/cpuidle" /sys/devices/system/cpu/cpuidle
		for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle; do
			if [ -d "$d" ]; then mount -t tmpfs -o ro,mode=0755,size=4k idlelab-world-none "$d"; fi
		done
		[ "$(cat /sys/devices/system/cpu/cpuidle/current_driver)" = none ]
		exec "$@"' "$root" "$@"
	rc=$?
else
	grep '^/sys/devices/system/cpu/' "$FIX/kvm-haltpoll.txt" > "$root/dump.txt"
	materialize "$root/dump.txt" "$root/tree"
	mkdir "$root/tick"
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		set -e
		mount --bind "$0/tree/sys/devices/system/cpu" /sys/devices/system/cpu
		python3 - "$0/tree/sys/devices/system/cpu" "$0/tick" <<"PY" &
import os, sys, time
cpu, tick = sys.argv[1], sys.argv[2]
def idle_us():
    out = {}
    with open("/proc/stat") as f:
        for l in f:
            w = l.split()
            if w[0].startswith("cpu") and w[0] != "cpu":
                out[int(w[0][3:])] = (int(w[4]) + int(w[5])) * 1e6 / os.sysconf("SC_CLK_TCK")
    return out
def put(path, value):
    t = os.path.join(tick, "v")
    with open(t, "w") as f:
        f.write("%d\n" % value)
    os.replace(t, path)    # readers see the old or the new value, never half of one
def get(path):
    with open(path) as f:
        return int(f.read())
last, spread = idle_us(), 0
while os.getppid() != 1:
    time.sleep(0.01)
    now = idle_us()
    for c, us in now.items():
        d = int(us - last.get(c, us))
        base = os.path.join(cpu, "cpu%d" % c, "cpuidle")
        if d <= 0 or not os.path.isdir(base):
            continue
        # haltpoll: about a tenth of the entries poll briefly, the rest halt for ~400 us
        n = max(1, d // 400)
        spread += 1
        polls = n // 10 + (spread % 10 == 0)
        for st, dn, dt in (("state0", polls, min(d, polls * 20)), ("state1", n, max(0, d - polls * 20))):
            for a, inc in (("usage", dn), ("time", dt), ("below" if st == "state0" else "above", dn // 20)):
                p = os.path.join(base, st, a)
                put(p, get(p) + inc)
    last = now
PY
		ticker=$!
		rc=0
		"$@" || rc=$?
		kill $ticker 2>/dev/null
		exit $rc' "$root" "$@"
	rc=$?
fi
exit $rc
