#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab export --openmetrics` end to end: two fixture hosts exported into two textfile
# directories, each read by Debian's prometheus-node-exporter (textfile collector only) on
# loopback, both scraped every second by a real prometheus; PromQL's fleet and per-host miss
# ratios over the counters equal what idlelab computed (its --summary); labels survive
# escaping; the shipped rules load, fire on the planted problems and pass promtool. Then the
# real /proc: a python3 child holding /dev/cpu_dma_latency is found locally and over SSH.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
SRC=${IL_SRCDIR:-.}
for b in prometheus prometheus-node-exporter promtool python3; do
	command -v $b >/dev/null || { skip "$b missing (make deps installs prometheus prometheus-node-exporter)"; finish; exit $?; }
done
PIDS=
if [ -x /usr/sbin/sshd ]; then . "$(dirname "$0")/sshd.sh"; fi
# every process this script starts, by PID (sshd.sh's too), then the temp directory
cleanup() {
	for p in $PIDS ${SSHD_PID:-}; do kill "$p" 2>/dev/null; done
	for p in $PIDS ${SSHD_PID:-}; do wait "$p" 2>/dev/null; done
	rm -rf "$E2E_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# q QUERY [LABEL]: an instant query; one line "LABEL-VALUE VALUE" per series (LABEL: instance; "-"
# when a series has none), sorted
q() {
	python3 - "$PROM_PORT" "$1" "${2:-instance}" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
r = json.load(urllib.request.urlopen(url, timeout=5))
assert r["status"] == "success", r
for s in sorted(r["data"]["result"], key=lambda s: s["metric"].get(sys.argv[3], "")):
    print(s["metric"].get(sys.argv[3], "-"), s["value"][1])
PY
}
# same NAME A B: the numbers A and B agree to 1e-12 (relative)
same() {
	if python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-12 * max(abs(b), 1e-300))' "$2" "$3"
	then ok "$1"; else bad "$1" "PromQL $2, idlelab $3"; fi
}
# summary FILE KEY: a number from export's --summary line ("idles", "misses", "miss ratio")
summary() { sed -n "s/.*[ ,]$2 \([0-9.e+-]*\).*/\1/p" "$1"; }

# ---- two fixture hosts with planted PM QoS ----
materialize "$FIX/labvm-arm64-after.txt" "$T/a"
materialize "$FIX/x86-haltpoll-2vcpu-after.txt" "$T/b"
mkdir -p "$T/a/proc/4242/fd" "$T/a/dev" "$T/tfa" "$T/tfb"
ln -s /dev/cpu_dma_latency "$T/a/proc/4242/fd/3"
printf 'rt"app\\x\n' > "$T/a/proc/4242/comm"
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("=i", 20))' "$T/a/dev/cpu_dma_latency"
mkdir -p "$T/a/sys/devices/system/cpu/cpu0/power" "$T/a/sys/devices/system/cpu/cpu1/power"
echo n/a > "$T/a/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us"
echo 0 > "$T/a/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"

expect "export needs a format" 2 "say which format: --openmetrics" "$IDLELAB" export --sysfs-root "$T/a"
expect "export to a missing directory fails clearly" 1 "cannot create '$T/nodir/idlelab.prom.tmp" \
	"$IDLELAB" export --openmetrics --sysfs-root "$T/a" -o "$T/nodir/idlelab.prom"
echo "old" > "$T/tfa/idlelab.prom" && chmod 0600 "$T/tfa/idlelab.prom"
(umask 077 && "$IDLELAB" export --openmetrics --sysfs-root "$T/a" -o "$T/tfa/idlelab.prom" --summary 2> "$T/sum.a") &&
	"$IDLELAB" export --openmetrics --sysfs-root "$T/b" -o "$T/tfb/idlelab.prom" --summary 2> "$T/sum.b" &&
	ok "export both hosts into their textfile directories" || bad "export both hosts" "$(cat "$T/sum.a" "$T/sum.b")"
[ "$(stat -c %a "$T/tfa/idlelab.prom")" = 644 ] && ok "the textfile is 0644 whatever the umask" ||
	bad "textfile mode" "$(stat -c %a "$T/tfa/idlelab.prom")"
[ "$(ls -A "$T/tfa" | wc -l)" = 1 ] && ok "no temporary file left beside it" || bad "temp files left" "$(ls -A "$T/tfa")"
expect "summary: idlelab's own lifetime numbers" 0 '2 CPUs, 6 idle states, 1 clusters, 1 cpu_dma_latency holders; since boot: idles 1151, misses 233, miss ratio 0\.202432' \
	cat "$T/sum.a"
expect "the exposition passes promtool's lint" 0 '' promtool check metrics < "$T/tfa/idlelab.prom"
expect "... also with a poll state" 0 '' promtool check metrics < "$T/tfb/idlelab.prom"
expect "the rules pass promtool check rules" 0 'SUCCESS: 11 rules found' promtool check rules "$SRC/examples/prometheus/idlelab-rules.yml"
expect "the rules pass their promtool unit tests (moving counters)" 0 'SUCCESS' \
	promtool test rules "$SRC/examples/prometheus/idlelab-rules.test.yml"

# ---- node_exporter x2 and prometheus on loopback ----
PA=$(free_port) PB=$(free_port) PROM_PORT=$(free_port)
for h in a b; do
	eval port=\$P$(echo $h | tr a-z A-Z)
	prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$T/tf$h" > "$T/ne.$h.log" 2>&1 &
	PIDS="$PIDS $!"
done
cat > "$T/prometheus.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$(cd "$SRC" && pwd)/examples/prometheus/idlelab-rules.yml"]
scrape_configs:
  - job_name: idlelab
    static_configs: [{targets: ["127.0.0.1:$PA", "127.0.0.1:$PB"]}]
YML
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address=127.0.0.1:$PROM_PORT > "$T/prometheus.log" 2>&1 &
PIDS="$PIDS $!"
n=0
for _ in $(seq 120); do
	n=$(q 'count(idlelab_cpuidle_governor_info)' 2>/dev/null | awk '{ print $2 }')
	[ "$n" = 2 ] && break
	sleep 0.5
done
if [ "$n" != 2 ]; then
	bad "prometheus scraped both node_exporters" "$(tail -n 5 "$T/prometheus.log" "$T"/ne.*.log)"
	finish; exit $?
fi
ok "prometheus scraped both node_exporters (textfile collector)"
expect "the textfile collector read both files without error" 0 '^- 2$' q 'count(node_textfile_scrape_error == 0)'

# the fleet miss ratio from the counters (lifetime: the counters do not move here; a rate needs
# two different scrapes) against idlelab's own numbers for the same trees
fleet=$(q '(sum(idlelab_cpuidle_state_above_total) + sum(idlelab_cpuidle_state_below_total)) / sum(idlelab_cpuidle_state_usage_total)' | awk '{ print $2 }')
want=$(python3 -c 'import sys; m = [float(x) for x in sys.argv[1:]]; print(repr((m[0] + m[2]) / (m[1] + m[3])))' \
	"$(summary "$T/sum.a" misses)" "$(summary "$T/sum.a" idles)" "$(summary "$T/sum.b" misses)" "$(summary "$T/sum.b" idles)")
same "PromQL's fleet miss ratio is idlelab's" "$fleet" "$want"
q '(sum by (instance) (idlelab_cpuidle_state_above_total) + sum by (instance) (idlelab_cpuidle_state_below_total)) / sum by (instance) (idlelab_cpuidle_state_usage_total)' > "$T/per-host"
same "... and host a's" "$(awk -v i="127.0.0.1:$PA" '$1 == i { print $2 }' "$T/per-host")" "$(summary "$T/sum.a" 'miss ratio')"
same "... and host b's (poll states' below included, as the kernel counts)" "$(awk -v i="127.0.0.1:$PB" '$1 == i { print $2 }' "$T/per-host")" \
	"$(summary "$T/sum.b" 'miss ratio')"
expect "cluster sums equal the CPUs' sums" 0 '^$' q 'sum by (instance) (idlelab_cpuidle_cluster_state_usage_total) != sum by (instance) (idlelab_cpuidle_state_usage_total)'
# labels as they went in: a quote and a backslash in a process name
python3 - "$PROM_PORT" <<'PY' && ok "a holder's name survives escaping" || bad "holder name escaping"
import json, sys, urllib.request
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?query=idlelab_pmqos_cpu_dma_latency_holder_info" % sys.argv[1]))
m = [s["metric"] for s in r["data"]["result"]]
assert len(m) == 1 and m[0]["comm"] == 'rt"app\\x' and m[0]["pid"] == "4242", m
PY
q idlelab_pmqos_resume_latency_limit_seconds cpu > "$T/resume"
[ "$(cat "$T/resume")" = "0 0
1 +Inf" ] && ok "resume latency: n/a is 0, no constraint +Inf" || bad "resume latency" "$(cat "$T/resume")"
expect "the effective CPU latency limit" 0 " 2e-05$| 0\.00002$" q idlelab_pmqos_cpu_latency_limit_seconds
# the alerting rules see the planted problems (pending: their "for" has not run out)
alerts=
for _ in $(seq 40); do
	alerts=$(python3 - "$PROM_PORT" <<'PY'
import json, sys, urllib.request
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/alerts" % sys.argv[1]))
print(" ".join(sorted(set(a["labels"]["alertname"] for a in r["data"]["alerts"]))))
PY
)
	[ "$alerts" = "IdlelabCpuDmaLatencyHeld IdlelabGovernorUnexpected IdlelabResumeLatencyLimited" ] && break
	sleep 0.5
done
[ "$alerts" = "IdlelabCpuDmaLatencyHeld IdlelabGovernorUnexpected IdlelabResumeLatencyLimited" ] &&
	ok "the alerts fire on what was planted, nothing else" || bad "alerts" "got: $alerts"

# ---- the real /proc: a holder of /dev/cpu_dma_latency ----
if [ -c /dev/cpu_dma_latency ] && python3 -c 'open("/dev/cpu_dma_latency", "rb")' 2>/dev/null; then
	python3 -c 'import time; f = open("/dev/cpu_dma_latency", "rb"); open("/proc/self/comm", "w").write("il-e2e-qos"); print("ready", flush=True); time.sleep(120)' > "$T/holder.out" &
	HOLDER=$!
	PIDS="$PIDS $HOLDER"
	for _ in $(seq 50); do grep -q ready "$T/holder.out" && break; sleep 0.1; done
	expect "export finds the holder in the real /proc" 0 "^idlelab_pmqos_cpu_dma_latency_holder_info\{pid=\"$HOLDER\",comm=\"il-e2e-qos\"\} 1$" \
		"$IDLELAB" export --openmetrics
	if [ -n "${SSHD_PID:-}" ]; then
		expect "... and over SSH (runners/pmqos.sh)" 0 "^idlelab_pmqos_cpu_dma_latency_holder_info\{pid=\"$HOLDER\",comm=\"il-e2e-qos\"\} 1$" \
			"$IDLELAB" export --openmetrics --host lab1 --hosts-dir "$HOSTS_DIR"
		# the families and the governor (counters move between two reads of a real machine)
		"$IDLELAB" export --openmetrics | grep '^# \|governor_info{' > "$T/local.prom"
		"$IDLELAB" export --openmetrics --host lab1 --hosts-dir "$HOSTS_DIR" | grep '^# \|governor_info{' > "$T/remote.prom"
		cmp -s "$T/local.prom" "$T/remote.prom" && ok "local and SSH exports of this machine have the same families" ||
			bad "local vs SSH export" "$(diff "$T/local.prom" "$T/remote.prom" | head -n 20)"
	else
		skip "sshd missing: the export over SSH is not checked"
	fi
	kill $HOLDER; wait $HOLDER 2>/dev/null
	"$IDLELAB" export --openmetrics > "$T/after.prom"
	grep -q "pid=\"$HOLDER\"" "$T/after.prom" && bad "a closed holder is gone" || ok "a closed holder is gone"
else
	skip "/dev/cpu_dma_latency missing or not readable: no holder checked in the real /proc"
fi
finish
