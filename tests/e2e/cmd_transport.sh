#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Hosts reached through a command transport (the host file's "transport"):
# one made of `sh -c`, one of ssh(1)/scp(1) against a real OpenSSH sshd on
# 127.0.0.1. Each target sees a fixture sysfs tree (tests/fixtures/sysfs,
# materialized) bind-mounted over /sys/devices/system/cpu in a private mount
# namespace made per exec (unshare -m), and a HOME of its own (its own
# idlelab working directory and host lock). Through both: host check,
# snapshot, governor set and restore and a state's disable (the fixture's
# files change), a run of a plan (periodic, two governors, two iterations)
# that ends complete with idle counters, the uploaded workload byte for
# byte; then a command that times out, a missing program, a device that is
# not there, a host answering `id -u` with garbage (probe_failed in an audit,
# not unreachable) and a host file with a bad template.
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
T=$E2E_TMP
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || [ ! -x /usr/sbin/sshd ] ||
	! command -v scp >/dev/null || ! command -v python3 >/dev/null; then
	skip "needs root (mount), unshare, sshd, scp and python3 (make deps)"; finish; exit $?
fi
# the fixture trees (2 CPUs, haltpoll driver, governors ladder menu haltpoll) and the targets' homes
for n in sh ssh; do
	materialize "$FIX/x86-haltpoll-2vcpu-before.txt" "$T/fix-$n"
	mkdir -m 700 "$T/home-$n"
done
if [ "$(unshare -m sh -c 'mount --bind "$0" /sys/devices/system/cpu && cat /sys/devices/system/cpu/cpuidle/current_driver' \
	"$T/fix-sh/sys/devices/system/cpu" 2>&1)" != haltpoll ]; then
	skip "cannot bind-mount a fixture over /sys/devices/system/cpu in a private mount namespace here"; finish; exit $?
fi
# the ssh target: sshd's ForceCommand enters the namespace and runs the command asked for
SSHD_EXTRA="ForceCommand exec env HOME=$T/home-ssh unshare -m sh -c 'mount --bind \"\$0\" /sys/devices/system/cpu && exec sh -c \"\$SSH_ORIGINAL_COMMAND\"' $T/fix-ssh/sys/devices/system/cpu"
. "$(dirname "$0")/sshd.sh"
export IDLELAB_HOSTS=$HOSTS_DIR
WL="--workloads-dir $SRC/workloads --workload-bin $SRC/build/workloads"

# jarr ARG...: the arguments as a JSON array of strings
jarr() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"; }
# host NAME EXEC PUSH [PULL] [COMMAND_TIMEOUT_S]: hosts/NAME.json with a transport (JSON arrays)
host() {
	printf '{"transport": {"exec": %s, "push": %s%s}, "connect_timeout_s": 5, "command_timeout_s": %s}\n' \
		"$2" "$3" "${4:+, \"pull\": $4}" "${5:-60}" > "$HOSTS_DIR/$1.json"
}
host cmd-sh "$(jarr env "HOME=$T/home-sh" unshare -m sh -c \
	'mount --bind "$0" /sys/devices/system/cpu && exec sh -c "$1"' "$T/fix-sh/sys/devices/system/cpu" '{cmd}')" \
	"$(jarr cp '{src}' '{dst}')"
SSHO="-F /dev/null -i $SSHD_DIR/client -o UserKnownHostsFile=$SSHD_DIR/known_hosts -o BatchMode=yes -o LogLevel=ERROR"
# shellcheck disable=SC2086
host cmd-ssh "$(jarr ssh -p "$SSHD_PORT" $SSHO root@127.0.0.1 '{cmd}')" \
	"$(jarr scp -O -q -P "$SSHD_PORT" $SSHO '{src}' 'root@127.0.0.1:{dst}')" \
	"$(jarr scp -O -q -P "$SSHD_PORT" $SSHO 'root@127.0.0.1:{src}' '{dst}')"

expect "host list shows the transport" 0 "cmd-ssh +command: ssh -p $SSHD_PORT " "$IDLELAB" host list
expect "host show prints the templates" 0 '"pull": \[' "$IDLELAB" host show cmd-ssh

# through_host NAME PROGRAM: everything a host is used for, through NAME's transport
through_host() {
	h=$1 c=$T/fix-${1#cmd-}/sys/devices/system/cpu home=$T/home-${1#cmd-}
	expect "$h: host check" 0 "host $h: reachable via command, auth the transport's own \\($2\\)" "$IDLELAB" host check $h
	expect "$h: host check sees the fixture's idle states" 0 "cpuidle driver haltpoll, governor haltpoll" \
		"$IDLELAB" host check $h
	expect "$h: host check --json" 0 '"transport": "command"' "$IDLELAB" host check $h --json
	expect "$h: snapshot" 0 "host $h +driver haltpoll" "$IDLELAB" snapshot --host $h
	expect "$h: the snapshot has the fixture's counters" 0 "0 +1 haltpoll idle +1 +1 +0 +40000 +97000000 " \
		"$IDLELAB" snapshot --host $h
	expect "$h: governor get" 0 "^haltpoll$" "$IDLELAB" governor get --host $h
	expect "$h: governor set menu" 0 "^menu$" "$IDLELAB" governor set menu --host $h
	[ "$(cat "$c/cpuidle/current_governor")" = menu ] && ok "$h: the fixture's governor file says menu" ||
		bad "$h: the fixture's governor file says menu" "$(cat "$c/cpuidle/current_governor")"
	expect "$h: governor set validates" 1 "host '$h': governor 'nope' not in available_governors" \
		"$IDLELAB" governor set nope --host $h
	expect "$h: governor restored" 0 "^haltpoll$" "$IDLELAB" governor set haltpoll --host $h
	[ "$(cat "$c/cpuidle/current_governor")" = haltpoll ] && ok "$h: the fixture's governor file says haltpoll" ||
		bad "$h: the fixture's governor file says haltpoll" "$(cat "$c/cpuidle/current_governor")"
	expect "$h: disable a state" 0 "state '1' disabled on 1 CPU" "$IDLELAB" governor disable 1 --cpus 1 --host $h
	[ "$(cat "$c/cpu1/cpuidle/state1/disable")" = 1 ] && [ "$(cat "$c/cpu0/cpuidle/state1/disable")" = 0 ] &&
		ok "$h: cpu1's state1 disable file says 1" || bad "$h: cpu1's state1 disable file says 1"
	expect "$h: enable it again" 0 "enabled on 1 CPU" "$IDLELAB" governor enable 1 --cpus 1 --host $h
	cat > "$T/plan-$h.json" <<JSON
{"name": "e2e-$h", "host": "$h", "governors": ["menu", "ladder"],
 "workloads": [{"workload": "periodic", "params": {"hz": 200, "duration": 0.2}}],
 "iterations": 2, "warmup": 0}
JSON
	# shellcheck disable=SC2086
	expect "$h: run completes" 0 "run complete" "$IDLELAB" run "$T/plan-$h.json" --out "$T/run-$h" $WL
	j=$T/run-$h/journal.jsonl
	n=$(grep -c '"type":"sample".*"status":"ok"' "$j")
	[ "$n" = 4 ] && ok "$h: 4 ok samples" || bad "$h: 4 ok samples" "$n; $(head -c 1500 "$j")"
	grep '"type":"sample".*"status":"ok"' "$j" | grep '"governor_read":"menu"' | grep -q '"idle":{' &&
		grep '"type":"sample".*"status":"ok"' "$j" | grep -q '"governor_read":"ladder".*"idle":{' &&
		ok "$h: samples under each governor carry idle counters" ||
		bad "$h: samples under each governor carry idle counters" "$(head -c 1500 "$j")"
	grep -q '"type":"restored","host":"'$h'","ok":true' "$j" && ok "$h: the run restored the host" ||
		bad "$h: the run restored the host" "$(grep restored "$j")"
	grep -q '"kind":"command"' "$j" && ok "$h: the journal says the host kind" || bad "$h: the journal says the host kind"
	[ "$(cat "$c/cpuidle/current_governor")" = haltpoll ] && ok "$h: governor back to haltpoll after the run" ||
		bad "$h: governor back to haltpoll after the run" "$(cat "$c/cpuidle/current_governor")"
	cmp -s "$home/.idlelab/bin/periodic" "$SRC/build/workloads/$(uname -m)/periodic" &&
		ok "$h: the uploaded workload is the local file byte for byte" ||
		bad "$h: the uploaded workload is the local file byte for byte" "$(ls -la "$home/.idlelab/bin" 2>&1)"
	if ls "$home/.idlelab/bin" | grep -q idlelab-tmp; then bad "$h: no temporary upload names left"
	else ok "$h: no temporary upload names left"; fi
	[ ! -e "$home/.idlelab/host.holder" ] && ok "$h: the host lock was released" || bad "$h: the host lock was released"
}
through_host cmd-sh env
through_host cmd-ssh ssh

# a command that outlives command_timeout_s: the transport's program and what it started are killed
cat > "$T/slow.sh" <<SH
case "\$1" in "'id'"*) ;; *) sleep 30 & echo \$! > "$T/slow.pid"; wait ;; esac
exec sh -c "\$1"
SH
host slow "$(jarr sh "$T/slow.sh" '{cmd}')" "$(jarr cp '{src}' '{dst}')" "" 1
start=$(date +%s)
expect "a command that times out is killed and said" 1 \
	"host 'slow': 'sh' timed out after 1.0 s \\(the transport's 'sh' was killed\\)" "$IDLELAB" host check slow
[ $(($(date +%s) - start)) -lt 10 ] && ok "the time-out came in time" || bad "the time-out came in time"
# running: the process exists and is not a zombie (this machine's init may not reap orphans)
running() { [ -r /proc/$1/stat ] && [ "$(sed 's/.*) //' /proc/$1/stat | cut -d' ' -f1)" != Z ]; }
if [ -s "$T/slow.pid" ]; then
	sleep 0.2
	if running "$(cat "$T/slow.pid")"; then bad "what the timed-out command started is gone"
	else ok "what the timed-out command started is gone"; fi
else
	bad "what the timed-out command started is gone" "no $T/slow.pid"
fi
host gone "$(jarr idlelab-no-such-adb -s SERIAL shell '{cmd}')" "$(jarr idlelab-no-such-adb push '{src}' '{dst}')"
expect "a transport program that does not exist: named with the host" 1 \
	"host 'gone': transport.exec: cannot run 'idlelab-no-such-adb'" "$IDLELAB" snapshot --host gone
host off "$(jarr sh -c "echo \"error: device 'SERIAL' not found\" >&2; exit 1" '{cmd}')" "$(jarr cp '{src}' '{dst}')"
expect "a transport that never runs the command" 1 \
	"host 'off': 'id' did not run to its end: the transport's 'sh' exited 1: error: device 'SERIAL' not found" \
	"$IDLELAB" governor get --host off
# a host that answers `id -u` with garbage was reached: its answer is wrong, not the connection
host garbled "$(jarr sh -c 'id() {{ echo abc; }}; {cmd}')" "$(jarr cp '{src}' '{dst}')"
expect "garbage for 'id -u': an error naming the host and what was expected" 1 \
	"host 'garbled': 'id -u' through the transport answered 'abc': expected a numeric user id alone on its line" \
	"$IDLELAB" host check garbled
"$IDLELAB" audit garbled --window 0 --format json -o "$T/garbled.json" > "$T/garbled.out" 2>&1
rc=$?
if [ "$rc" = 3 ] && grep -q '"kind": "probe_failed"' "$T/garbled.json" && ! grep -q unreachable "$T/garbled.json"; then
	ok "... and the audit's probe_failed, not unreachable"
else
	bad "... and the audit's probe_failed, not unreachable" "exit $rc: $(cat "$T/garbled.out"; grep '"kind"' "$T/garbled.json")"
fi
host badpush "$(jarr sh -c '{cmd}')" "$(jarr cp '{src}' /tmp/x)"
expect "a template without its placeholder: file and JSON path" 1 \
	"badpush.json: transport.push: expected an argv template \\(array of strings\\) with \\{src\\} and \\{dst\\} \\(no \\{dst\\} in it\\)" \
	"$IDLELAB" host show badpush
finish
