#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A lab host is a shared machine that idlelab drives as root (a real sshd on
# 127.0.0.1, logged in as root): what another local user plants is never run
# or written through, and no process of a sample survives a timeout, Ctrl-C
# or a killed idlelab (the next resume stops what is left).
. "$(dirname "$0")/lib.sh"
if [ ! -x /usr/sbin/sshd ] || ! command -v python3 setpriv >/dev/null || [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "needs root, sshd, python3, setpriv and a 'nobody' user"; finish; exit $?
fi
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
. "$(dirname "$0")/sshd.sh"
export IDLELAB_HOSTS=$HOSTS_DIR
WL="--workloads-dir $E2E_TMP/wl --workload-bin $SRC/build/workloads"
mkdir -p "$E2E_TMP/wl"
cp "$SRC/workloads/sleeper.json" "$SRC/workloads/pingpong.json" "$E2E_TMP/wl/"
# a workload whose processes are easy to find on the host: "sleep 31.4159"
cat > "$E2E_TMP/wl/longsleep.json" <<'JSON'
{"description": "a sleep that outlives its sample", "argv": ["sh", "-c", "sleep 31.4159 & sleep 31.4159; echo 'slept: 1'"],
 "parser": "idlelab-kv", "metrics": {"slept": {"unit": "1", "better": "higher"}}}
JSON
leftovers() { pgrep -f 'sleep 31[.]4159' | tr '\n' ' '; }
none_left() {
	for _ in $(seq 30); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
	[ -z "$(leftovers)" ] && ok "$1: no process of the sample is left" ||
		bad "$1: no process of the sample is left" "$(ps -o pid,pgid,args -p "$(leftovers | tr ' ' ',')0" 2>&1)"
}

# 1. what a local user plants: the old shared workload directory with a fake uname,
#    symlinks at the temporary names uploads used to write through
victim=$E2E_TMP/victim
echo precious > "$victim"
chmod 600 "$victim"
chmod 755 "$E2E_TMP"
rm -rf /tmp/idlelab-workloads
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "mkdir -m 777 /tmp/idlelab-workloads &&
	printf '#!/bin/sh\ntouch $E2E_TMP/pwned\nexec /bin/uname \"\$@\"\n' > /tmp/idlelab-workloads/uname &&
	chmod 755 /tmp/idlelab-workloads/uname &&
	for p in sleeper pingpong; do for i in \$(seq 1 400); do
		ln -s $victim /tmp/idlelab-workloads/\$p.idlelab-tmp.\$((\$\$ + i)); done; done" 2>/dev/null
# /tmp and /var/tmp as they are, less a compiler's temporaries (gcc's ccXXXXXX.s and kin: a kernel
# build of tests/prebuild.sh may run beside this test; idlelab never makes such names)
tmp_list() { ls /tmp /var/tmp | grep -Ev '^cc[A-Za-z0-9]{6}\.[a-z]{1,3}$'; }
tmp_list > "$E2E_TMP/before.txt"
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "safety", "host": "lab1",
 "workloads": [{"workload": "sleeper", "params": {"duration": 0.2, "mix": "50:300"}},
               {"workload": "pingpong", "params": {"pairs": 1, "loops": 200}}], "iterations": 1, "quiesce_s": 0}
JSON
expect "a run with own workloads over ssh" 0 "run complete" "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" $WL
[ ! -e "$E2E_TMP/pwned" ] && ok "a planted 'uname' in the old shared directory is never run" ||
	bad "a planted 'uname' in the old shared directory is never run"
[ "$(cat "$victim")" = precious ] && [ "$(stat -c %a "$victim")" = 600 ] &&
	ok "symlinks planted at upload names are never written through" ||
	bad "symlinks planted at upload names are never written through" "$(stat -c '%a %s' "$victim")"
tmp_list > "$E2E_TMP/after.txt"
cmp -s "$E2E_TMP/before.txt" "$E2E_TMP/after.txt" && ok "nothing outside idlelab's own directory was created" ||
	bad "nothing outside idlelab's own directory was created" "$(diff "$E2E_TMP/before.txt" "$E2E_TMP/after.txt")"
[ "$(stat -c '%a %U' /root/.idlelab /root/.idlelab/bin | tr '\n' ' ')" = "700 root 700 root " ] &&
	ok "idlelab's directory on the host is root's, mode 0700" ||
	bad "idlelab's directory on the host is root's, mode 0700" "$(stat -c '%n %a %U' /root/.idlelab /root/.idlelab/bin)"
# sample.sh adds nothing to PATH: the run above found them only by their absolute path
[ "$(stat -c '%a %U' /root/.idlelab/bin/sleeper /root/.idlelab/bin/pingpong | tr '\n' ' ')" = "755 root 755 root " ] &&
	ok "own workloads live in idlelab's directory (run by absolute path)" ||
	bad "own workloads live in idlelab's directory" "$(ls -l /root/.idlelab/bin)"
rm -rf /tmp/idlelab-workloads

# 2. a sample's time limit: the watchdog kills the workload's whole process group
cat > "$E2E_TMP/timeout.json" <<JSON
{"name": "timeout", "host": "lab1", "workloads": ["longsleep"], "iterations": 1, "quiesce_s": 0, "timeout_s": 2}
JSON
"$IDLELAB" run "$E2E_TMP/timeout.json" --out "$E2E_TMP/to" $WL -q >/dev/null 2>&1
grep -q '"final":true,"status":"infra_failed","reason":"workload killed (timeout_s 2 reached' "$E2E_TMP/to/journal.jsonl" &&
	ok "timeout: the sample says it was killed at its time limit" ||
	bad "timeout: the sample says it was killed at its time limit" "$(grep '"type":"sample"' "$E2E_TMP/to/journal.jsonl" | cut -c1-300)"
none_left "timeout"

# 3. Ctrl-C in the middle of a sample: exit 130, then nothing of it runs on
cat > "$E2E_TMP/int.json" <<JSON
{"name": "int", "host": "lab1", "workloads": ["longsleep"], "iterations": 2, "quiesce_s": 0}
JSON
"$IDLELAB" run "$E2E_TMP/int.json" --out "$E2E_TMP/int" $WL -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -n "$(leftovers)" ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && ok "SIGINT: exit 130" || bad "SIGINT: exit 130" "exit $rc"
none_left "SIGINT"
grep -q '"type":"restored","host":"lab1","ok":true' "$E2E_TMP/int/journal.jsonl" &&
	ok "SIGINT: restored is journaled after the sample was stopped" || bad "SIGINT: restored is journaled"

# 4. idlelab killed: its sample runs on, and the next resume stops it first
"$IDLELAB" run --resume "$E2E_TMP/int" $WL -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -n "$(leftovers)" ] && break; sleep 0.1; done
kill -KILL $pid
wait $pid 2>/dev/null
[ -n "$(leftovers)" ] && ok "SIGKILL: the sample outlives idlelab (as expected)" || bad "SIGKILL: the sample outlives idlelab"
"$IDLELAB" run --resume "$E2E_TMP/int" $WL > "$E2E_TMP/resume.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "stopped 1 sample" "$E2E_TMP/resume.log" && break; sleep 0.1; done
grep -q "stopped 1 sample(s) a killed run had left running on the host" "$E2E_TMP/resume.log" &&
	ok "resume: the killed run's sample is found and stopped" ||
	bad "resume: the killed run's sample is found and stopped" "$(cat "$E2E_TMP/resume.log")"
# 5. one writer per run directory, one run per host, both naming the holder
expect "a second resume of the same run is refused" 1 \
	"run directory '.*/int' is in use by another idlelab \\(run .*/int, pid $pid on " "$IDLELAB" run --resume "$E2E_TMP/int" $WL
expect "a second run on the same host is refused" 1 \
	"host 'lab1' is in use by another idlelab run \\(run .*/int, pid $pid on .*\\); one run per host" \
	"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/other" $WL
kill -INT $pid
wait $pid
none_left "after the resume"
# the holder gone, the host is free again (no stale lock): the refused run resumes and completes
expect "after the holder ends, the host is free" 0 "run complete" "$IDLELAB" run --resume "$E2E_TMP/other" $WL
pgrep -f "idlelab.lock" >/dev/null && bad "no lock holder is left on the host" "$(pgrep -af idlelab.lock)" ||
	ok "no lock holder is left on the host"
finish
