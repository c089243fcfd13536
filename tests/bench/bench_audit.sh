#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: `idlelab audit` of N (default 100) real sshd hosts on loopback,
# each in its own mount and PID namespace with its own sysfs tree from
# tests/fixtures/sysfs (tests/e2e/fleet.sh), against Debian's parallel-ssh
# and pdsh running the same one-exec collection (probe.sh, snapshot.sh, the
# window, snapshot.sh) at the same concurrency. Prints hosts/s for each and
# where idlelab's time goes. Goal: >= 3x parallel-ssh.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
: "${IDLELAB:=$IL_SRCDIR/idlelab}"
N=${BENCH_AUDIT_HOSTS:-100} JOBS=${BENCH_AUDIT_JOBS:-64} WINDOW=${BENCH_AUDIT_WINDOW:-1}
if [ "$(id -u)" != 0 ] || ! unshare -m -p -f --mount-proc true 2>/dev/null; then
	echo "bench audit: skipped (needs root and mount/PID namespaces)"; exit 0
fi
. "$IL_SRCDIR/tests/e2e/fleet.sh"
# one tree per fixture, copied per host: hosts differ (x86, arm64 big.LITTLE, haltpoll, pseries, the lab)
i=0
for f in x86-intel-idle-before arm64-biglittle-before kvm-haltpoll pseries-before labvm-arm64-before; do
	fleet_tree "tpl$i" "$FIX/$f.txt" >/dev/null
	i=$((i + 1))
done
ports= list=$E2E_TMP/list aliases=
: > "$list"
for n in $(seq -w 1 "$N"); do
	p=$(fleet_port)
	cp -a "$FLEET/tpl$(( $(echo "$n" | sed 's/^0*//') % 5 ))" "$FLEET/h$n"
	fleet_start "h$n" "$p"
	ports="$ports $p"
	echo "root@127.0.0.1:$p" >> "$list"
	aliases="$aliases h$n"
done
# shellcheck disable=SC2086
fleet_wait $ports
export HOME=$FLEET/home IDLELAB_SSH_CONFIG=$FLEET/ssh_config
{ cat "$IL_SRCDIR/runners/probe.sh" "$IL_SRCDIR/runners/snapshot.sh"
  printf 'echo idlelab-second-snapshot\nsleep "$1"\n'; cat "$IL_SRCDIR/runners/snapshot.sh"; } > "$FLEET/collect.sh"
now() { date +%s.%N; }
# CPU seconds: the tool's own process tree (dash's `times`, children line, in a subshell per tool)
# and the hosts' side (every sshd master's reaped children: the per-connection sshd, root's
# shell and the collection script), so the report can say where each tool's time goes
cpu_self() { awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }'; }
HZ=$(getconf CLK_TCK)
cpu_hosts() {
	for p in $(pgrep -f "sshd -D -e -f $FLEET/sshd_config"); do cat "/proc/$p/stat" 2>/dev/null; done |
		awk -v hz="$HZ" '{ sub(/^.*\) /, ""); s += $14 + $15 } END { printf "%.2f\n", s / hz }'
}

h0=$(cpu_hosts)
t0=$(now)
( "$IDLELAB" audit --inventory "$list" --window "$WINDOW" --jobs "$JOBS" --format json -o "$E2E_TMP/audit.json"
  echo $? > "$E2E_TMP/rc"; times > "$E2E_TMP/times" )
rc=$(cat "$E2E_TMP/rc")
t1=$(now)
il_cpu=$(cpu_self < "$E2E_TMP/times") il_host=$(echo "$(cpu_hosts) - $h0" | bc -l)
[ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "bench audit: idlelab audit failed (exit $rc)"; exit 1; }
il_s=$(echo "$t1 - $t0" | bc -l)
audited=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["audited"])' "$E2E_TMP/audit.json")

printf '%s\n' $aliases > "$E2E_TMP/aliases"
h0=$(cpu_hosts)
t0=$(now)
( parallel-ssh -h "$E2E_TMP/aliases" -p "$JOBS" -t 120 -x "-F $FLEET/ssh_config" -o "$E2E_TMP/pssh" -I \
	"sh -s $WINDOW" < "$FLEET/collect.sh" > "$E2E_TMP/pssh.log" 2>&1; times > "$E2E_TMP/times" )
t1=$(now)
pssh_cpu=$(cpu_self < "$E2E_TMP/times") pssh_host=$(echo "$(cpu_hosts) - $h0" | bc -l)
pssh_s=$(echo "$t1 - $t0" | bc -l)
pssh_ok=$(grep -l idlelab-second-snapshot "$E2E_TMP"/pssh/* 2>/dev/null | wc -l)

h0=$(cpu_hosts)
t0=$(now)
( PDSH_SSH_ARGS="-F $FLEET/ssh_config -x %h" PDSH_RCMD_TYPE=ssh \
	pdsh -f "$JOBS" -w "$(echo $aliases | tr ' ' ',')" "sh $FLEET/collect.sh $WINDOW" > "$E2E_TMP/pdsh.out" 2>"$E2E_TMP/pdsh.err"
  times > "$E2E_TMP/times" )
t1=$(now)
pdsh_cpu=$(cpu_self < "$E2E_TMP/times") pdsh_host=$(echo "$(cpu_hosts) - $h0" | bc -l)
pdsh_s=$(echo "$t1 - $t0" | bc -l)
pdsh_ok=$(grep -c ': idlelab-second-snapshot$' "$E2E_TMP/pdsh.out")

[ "$pssh_ok" = "$N" ] || head -5 "$E2E_TMP/pssh.log"
[ "$pdsh_ok" = "$N" ] || head -5 "$E2E_TMP/pdsh.err"
python3 - "$E2E_TMP/audit.json" "$N" "$JOBS" "$WINDOW" "$il_s" "$audited" "$pssh_s" "$pssh_ok" "$pdsh_s" "$pdsh_ok" \
	"$il_cpu" "$il_host" "$pssh_cpu" "$pssh_host" "$pdsh_cpu" "$pdsh_host" "$(nproc)" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); t = j["timing"]
n, jobs, win = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
il, ok = float(sys.argv[5]), int(sys.argv[6])
ps, psok, pd, pdok = float(sys.argv[7]), int(sys.argv[8]), float(sys.argv[9]), int(sys.argv[10])
cpu = [float(x) for x in sys.argv[11:17]]
cores = int(sys.argv[17])
print(f"bench audit: {n} sshd hosts on loopback (own mount+PID namespace and sysfs each), {jobs} in flight, window {win:g} s")
print(f"  idlelab audit:  {n/il:8.1f} hosts/s ({il:.2f} s, {ok} audited, findings and report included)")
print(f"  parallel-ssh:   {n/ps:8.1f} hosts/s ({ps:.2f} s, {psok} collected, no parsing)")
print(f"  pdsh:           {n/pd:8.1f} hosts/s ({pd:.2f} s, {pdok} collected, no parsing)")
print(f"  idlelab vs parallel-ssh: {ps/il:.2f}x (goal >= 3x); vs pdsh: {pd/il:.2f}x")
print(f"  idlelab's time: collection {t['wall_s']:.2f} s wall; per host connect {t['connect_s']/n*1000:.0f} ms,"
      f" exec {t['exec_s']/n*1000:.0f} ms (window {win*1000:.0f} ms of it); judging and report {t['judge_s']*1000:.1f} ms")
print("  CPU per host, the tool's own process tree / the host side (sshd, root's shell, the collection):")
for name, (c, h) in (("idlelab audit", cpu[0:2]), ("parallel-ssh", cpu[2:4]), ("pdsh", cpu[4:6])):
    print(f"    {name + ':':15s} {c/n*1000:6.1f} ms / {h/n*1000:6.1f} ms")
floor = win + n * (cpu[1] / n) / cores
print(f"  client CPU, parallel-ssh / idlelab: {cpu[2]/max(cpu[0],1e-9):.1f}x (what bounds hosts/s when the hosts are other machines)")
print(f"  here both sides share {cores} cores: the host side alone needs {floor:.2f} s (window + host CPU / cores),"
      f" so no client could exceed {ps/floor:.2f}x parallel-ssh on this machine")
PY
