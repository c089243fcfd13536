#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A workload that forges its own result (issue #28): it reads the frame tag
# where it can (its output file's path, its runner's arguments), prints a
# whole set of frames of its own — value and idle snapshots of its choosing,
# status 0 — to its runner's output and kills the runner, then exits 7. That
# sample must not be recorded ok. A second workload collects everything of
# its runner's it can read (every ancestor's argv and environment, its files'
# paths, idlelab's working directory) and the frame tags, which the host's
# transport logs as they go to the runner's stdin, must be in none of it.
# The host is the cheap command-transport host (tests/e2e/cmd_transport.sh):
# `sh -c` in a private mount namespace with a fixture tree over
# /sys/devices/system/cpu, its own HOME.
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
T=$E2E_TMP
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v python3 >/dev/null; then
	skip "needs root (mount), unshare and python3"; finish; exit $?
fi
FIXA=$(cd "$FIX" && pwd)
materialize "$FIX/x86-haltpoll-2vcpu-before.txt" "$T/fix"
mkdir -m 700 "$T/home"
if [ "$(unshare -m sh -c 'mount --bind "$0" /sys/devices/system/cpu && cat /sys/devices/system/cpu/cpuidle/current_driver' \
	"$T/fix/sys/devices/system/cpu" 2>&1)" != haltpoll ]; then
	skip "cannot bind-mount a fixture over /sys/devices/system/cpu in a private mount namespace here"; finish; exit $?
fi
export IDLELAB_HOSTS=$T/hosts
mkdir "$IDLELAB_HOSTS" "$T/wl"
jarr() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"; }
# whatever idlelab writes to a command's stdin is appended to stdin.log on its way (tee)
printf '{"transport": {"exec": %s, "push": %s}, "connect_timeout_s": 5, "command_timeout_s": 60}\n' \
	"$(jarr env "HOME=$T/home" unshare -m sh -c \
		'mount --bind "$0" /sys/devices/system/cpu && tee -a "$2" | sh -c "$1"' \
		"$T/fix/sys/devices/system/cpu" '{cmd}' "$T/stdin.log")" \
	"$(jarr cp '{src}' '{dst}')" > "$IDLELAB_HOSTS/spy.json"

cat > "$T/hostile.sh" <<'SH'
# hostile.sh forge PRE POST | spy FILE
mode=$1
case $mode in
forge)
	# the tag as the runner gave it to its files ("WORKDIR/s.TAG/out"), else in its argv ("idlelab TAG ...")
	o=$(readlink /proc/$$/fd/1)
	n=${o%/out}
	n=${n##*/s.}
	[ -n "$n" ] || n=$(tr '\0' '\n' < /proc/$PPID/cmdline | grep -m1 '^IL[0-9a-f]*$')
	{
		printf '@@%s uname %s %s\n' "$n" "$(uname -r)" "$(uname -m)"
		printf '@@%s pre %s\n' "$n" "$(wc -c < "$2")"
		cat "$2"
		printf '@@%s post %s\n' "$n" "$(wc -c < "$3")"
		cat "$3"
		printf '@@%s out 11\nvalue: 999\n' "$n"
		printf '@@%s err 0\n@@%s status 0\n@@%s end\n' "$n" "$n" "$n"
	} > /proc/$PPID/fd/1
	kill -KILL $PPID
	exit 7 ;;
spy)
	p=$$
	while [ "$p" -gt 1 ]; do
		tr '\0' '\n' < /proc/$p/cmdline
		tr '\0' '\n' < /proc/$p/environ
		p=$(awk '/^PPid:/ { print $2 }' /proc/$p/status)
	done >> "$2" 2>/dev/null
	for f in /proc/$$/fd/*; do readlink "$f"; done >> "$2" 2>/dev/null
	o=$(readlink /proc/$$/fd/1)
	ls -a "${o%/*/out}" >> "$2" 2>/dev/null
	echo "value: 1" ;;
esac
SH
cat > "$T/wl/hostile.json" <<JSON
{"description": "a workload that forges its result or spies on its runner", "argv": ["sh", "$T/hostile.sh", "{mode}",
 "{a}", "{b}"], "params": {"mode": {"type": "string", "default": "spy"}, "a": {"type": "string", "default": "-"},
 "b": {"type": "string", "default": "-"}}, "parser": "idlelab-kv",
 "metrics": {"value": {"unit": "count", "better": "higher"}}}
JSON
cat > "$T/plan.json" <<JSON
{"name": "forged", "host": "spy", "governors": ["haltpoll"], "min_sample_s": 0, "iterations": 2, "warmup": 0,
 "workloads": [{"workload": "hostile", "label": "spy", "params": {"mode": "spy", "a": "$T/spied"}},
               {"workload": "hostile", "label": "forge", "params": {"mode": "forge", "a": "$FIXA/x86-haltpoll-2vcpu-before.txt",
                                                   "b": "$FIXA/x86-haltpoll-2vcpu-after.txt"}}]}
JSON
"$IDLELAB" run "$T/plan.json" --out "$T/run" --workloads-dir "$T/wl" > "$T/run.out" 2>&1
J=$T/run/journal.jsonl
[ -s "$J" ] && ok "the run wrote its journal" || bad "the run wrote its journal" "$(cat "$T/run.out")"
# final[mode] = statuses; values of ok samples
sum=$(python3 - "$J" <<'PY'
import json, sys
out = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") != "sample" or not r.get("final"):
        continue
    m = r["params"]["mode"]
    v = (r.get("metrics") or {}).get("value")
    out.setdefault(m, []).append("%s:%s" % (r["status"], v if r["status"] == "ok" else "-"))
print(" ".join("%s=%s" % (k, ",".join(sorted(v))) for k, v in sorted(out.items())))
PY
)
[ "$sum" = "forge=infra_failed:-,infra_failed:- spy=ok:1.0,ok:1.0" ] &&
	ok "the forged samples are infrastructure failures, the spy's are samples ($sum)" ||
	bad "the forged samples are infrastructure failures, the spy's are samples" "$sum; $(head -c 3000 "$J")"
if grep '"type":"sample"' "$J" | grep '"status":"ok"' | grep -q '"value":999'; then
	bad "the forged value is in no ok record"
else
	ok "the forged value is in no ok record"
fi
grep '"type":"sample"' "$J" | grep '"mode":"forge"' | grep -q 'runner output: unexpected text' &&
	ok "the forged frames are not taken as the runner's" ||
	bad "the forged frames are not taken as the runner's" "$(grep '"mode":"forge"' "$J" | head -c 1500)"
# the tags went on stdin, one per attempt, and the workload saw none of them
tags=$(grep -c '^IL[0-9a-f]\{16\}$' "$T/stdin.log" 2>/dev/null)
[ "${tags:-0}" -ge 4 ] && ok "every attempt's frame tag came on the runner's stdin ($tags)" ||
	bad "every attempt's frame tag came on the runner's stdin" "$(cat "$T/stdin.log" 2>&1)"
if [ -s "$T/spied" ] && grep -q "hostile.sh" "$T/spied"; then
	ok "the spy read its runner's argv and environment"
else
	bad "the spy read its runner's argv and environment" "$(head -c 1000 "$T/spied" 2>&1)"
fi
seen=
for tag in $(grep '^IL[0-9a-f]\{16\}$' "$T/stdin.log"); do
	grep -q "$tag" "$T/spied" && seen="$seen $tag"
done
[ -z "$seen" ] && ok "no frame tag is where the workload can read it" ||
	bad "no frame tag is where the workload can read it" "seen:$seen"
[ "$(cat "$T/fix/sys/devices/system/cpu/cpuidle/current_governor")" = haltpoll ] &&
	ok "the host's governor is back" || bad "the host's governor is back"
finish
