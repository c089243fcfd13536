#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab audit against real sshd hosts on loopback, each in its own mount
# and PID namespace with its own cpuidle sysfs (tests/e2e/fleet.sh) and one
# problem planted per host (governor, disabled states, a boot option, a
# resume-latency limit, a /dev/cpu_dma_latency holder, haltpoll on "bare
# metal", acpi_idle on an Intel CPU, a CPU with its own table, too-deep idle
# entries during the window), one host down and one refusing our user: the
# report lists exactly the planted findings. Hosts come from a host file
# (--all), a plain list (--inventory) and an ~/.ssh/config alias.
. "$(dirname "$0")/lib.sh"
if [ ! -x /usr/sbin/sshd ] || ! command -v python3 >/dev/null || ! command -v unshare >/dev/null ||
	[ "$(id -u)" != 0 ]; then
	skip "sshd, python3, unshare or root missing"; finish; exit $?
fi
if ! unshare -m -p -f --mount-proc true 2>/dev/null; then
	skip "mount and PID namespaces not available here"; finish; exit $?
fi
. "$(dirname "$0")/fleet.sh"
X86=$FIX/x86-intel-idle-before.txt
C=sys/devices/system/cpu
# a bare-metal Intel host as /proc/cpuinfo and systemd-detect-virt show it
bare() {
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\nflags\t\t: fpu vme de pse msr\n\n' > "$1/cpuinfo"
	printf '#!/bin/sh\necho none\nexit 1\n' > "$1/detect-virt" && chmod +x "$1/detect-virt"
}
r=$(fleet_tree clean "$X86")
r=$(fleet_tree gov "$X86"); echo ladder > "$r/$C/cpuidle/current_governor"
r=$(fleet_tree dis "$X86"); echo 1 > "$r/$C/cpu1/cpuidle/state4/disable"
for c in 0 1 2 3; do echo disabled > "$r/$C/cpu$c/cpuidle/state6/default_status"; echo 1 > "$r/$C/cpu$c/cpuidle/state6/disable"; done
r=$(fleet_tree boot "$X86"); echo 'BOOT_IMAGE=/vmlinuz ro idle=poll quiet' > "$r/cmdline"
for c in 0 1 2 3; do mkdir -p "$r/$C/cpu$c/power"; echo 0 > "$r/$C/cpu$c/power/pm_qos_resume_latency_us"; done
echo n/a > "$r/$C/cpu2/power/pm_qos_resume_latency_us"
r=$(fleet_tree halt "$FIX/kvm-haltpoll.txt"); bare "$r"
r=$(fleet_tree acpi "$X86"); bare "$r"; echo acpi_idle > "$r/$C/cpuidle/current_driver"
echo 900 > "$r/$C/cpu3/cpuidle/state5/residency"
r=$(fleet_tree deep "$X86"); DEEP=$r
HOLD=
if [ -c /dev/cpu_dma_latency ]; then r=$(fleet_tree hold "$X86"); touch "$r/hold"; HOLD=hold; fi
P_CLEAN=$(fleet_port) P_GOV=$(fleet_port) P_DIS=$(fleet_port) P_BOOT=$(fleet_port) P_HALT=$(fleet_port)
P_ACPI=$(fleet_port) P_DEEP=$(fleet_port) P_HOLD=$(fleet_port) P_DOWN=$(fleet_port)
for h in clean:$P_CLEAN gov:$P_GOV dis:$P_DIS boot:$P_BOOT halt:$P_HALT acpi:$P_ACPI deep:$P_DEEP; do
	fleet_start "${h%%:*}" "${h#*:}"
done
[ -n "$HOLD" ] && fleet_start hold "$P_HOLD"
fleet_wait "$P_CLEAN" "$P_GOV" "$P_DIS" "$P_BOOT" "$P_HALT" "$P_ACPI" "$P_DEEP"
[ -n "$HOLD" ] && fleet_wait "$P_HOLD"
# deep: its idle counters move during the window, half the entries too deep (renamed in, never half-written)
(
	u=1000 a=100 t=100000
	while :; do
		u=$((u + 400)) a=$((a + 200)) t=$((t + 4000))
		f=$DEEP/$C/cpu0/cpuidle/state4
		echo $u > "$f/.u" && mv "$f/.u" "$f/usage"
		echo $a > "$f/.a" && mv "$f/.a" "$f/above"
		echo $t > "$f/.t" && mv "$f/.t" "$f/time"
		sleep 0.1
	done
) &
BUMP=$!
FLEET_PIDS="$FLEET_PIDS $BUMP"

export HOME=$FLEET/home IDLELAB_SSH_CONFIG=$FLEET/ssh_config IDLELAB_HOSTS=$E2E_TMP/hosts
mkdir -p "$IDLELAB_HOSTS"
printf '{"address": "127.0.0.1", "port": %s, "user": "root", "identity": "%s", "known_hosts": "%s"}\n' \
	"$P_CLEAN" "$FLEET/client" "$FLEET/home/.ssh/known_hosts" > "$IDLELAB_HOSTS/clean.json"
{
	echo "# one [user@]host[:port] a line"
	for p in $P_DIS $P_BOOT $P_HALT $P_ACPI $P_DEEP $P_DOWN; do echo "root@127.0.0.1:$p"; done
	[ -n "$HOLD" ] && echo "root@127.0.0.1:$P_HOLD"
	echo "nosuchuser@127.0.0.1:$P_CLEAN"
} > "$E2E_TMP/fleet.list"

"$IDLELAB" audit gov --all --inventory "$E2E_TMP/fleet.list" --window 1.5 --jobs 4 --format json \
	-o "$E2E_TMP/audit.json" 2>"$E2E_TMP/err"
rc=$?
[ "$rc" = 3 ] && ok "findings at or above warning: exit 3" || bad "findings at or above warning: exit 3" "exit $rc: $(cat "$E2E_TMP/err")"
# every (host, kind) found, against exactly what was planted
python3 - "$E2E_TMP/audit.json" > "$E2E_TMP/found" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for h in j["hosts"]:
    for f in h["findings"]:
        print(h["host"].split(":")[-1] if "@" in h["host"] else h["host"], f["kind"])
PY
{
	echo "gov governor"
	echo "$P_DIS states_disabled"
	echo "$P_DIS states_off_by_driver"
	echo "$P_BOOT cmdline_option"
	echo "$P_BOOT resume_latency_limit"
	echo "$P_HALT haltpoll_bare_metal"
	echo "$P_ACPI driver_mismatch"
	echo "$P_ACPI state_tables_differ"
	echo "$P_DEEP too_deep"
	echo "$P_DOWN unreachable"
	echo "$P_CLEAN auth_refused"
	[ -n "$HOLD" ] && echo "$P_HOLD cpu_dma_latency_held"
} > "$E2E_TMP/want"
if [ "$(sort "$E2E_TMP/found")" = "$(sort "$E2E_TMP/want")" ]; then ok "the report lists exactly the planted findings"
else bad "the report lists exactly the planted findings" "$(sort "$E2E_TMP/want" > "$E2E_TMP/w"; sort "$E2E_TMP/found" | diff "$E2E_TMP/w" -; cat "$E2E_TMP/err")"; fi
[ -z "$HOLD" ] && skip "no /dev/cpu_dma_latency: its holder not planted"

python3 - "$E2E_TMP/audit.json" <<'PY' && ok "summary: 12 hosts, 10 audited, fleet idle counted" || bad "summary counts"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["unreached"] == 2 and s["audited"] == s["hosts"] - 2, s
assert s["idle"]["idles"] and s["idle"]["idles"] > 0, s
PY
expect "text report: one line per finding with its hosts" 3 "warning +governor +governor ladder \(1\): gov" \
	"$IDLELAB" audit gov clean --window 0
expect "a clean host exits 0" 0 "no findings" "$IDLELAB" audit clean --window 0
expect "--fail-on critical ignores warnings" 0 "governor ladder" "$IDLELAB" audit gov --window 0 --fail-on critical
expect "an unknown bare name is an error" 1 "no host file .*and no ~/.ssh/config alias" "$IDLELAB" audit nosuch
expect "a bad policy names its JSON path" 1 "limits.too_deep_pct: expected a number from 0 to 100" \
	sh -c "echo '{\"limits\": {\"too_deep_pct\": 101}}' > '$E2E_TMP/p.json'; '$IDLELAB' audit clean --policy '$E2E_TMP/p.json'"
expect "csv: one row per host finding" 3 "^gov,yes,warning,governor,governor ladder," "$IDLELAB" audit gov --window 0 --format csv
"$IDLELAB" audit gov clean "root@127.0.0.1:$P_DOWN" --window 0 --format html -o "$E2E_TMP/audit.html"
grep -q '<svg' "$E2E_TMP/audit.html" && grep -q 'data-kind="unreachable"' "$E2E_TMP/audit.html" &&
	ok "html: residency chart and findings table" || bad "html: residency chart and findings table"
browser_dom "$E2E_TMP/audit.html" "html audit report renders in Chromium" &&
	{ grep -q 'class="finding warning" data-kind="governor"' "$E2E_TMP/dom.html" && ok "Chromium's DOM has the findings rows" ||
		bad "Chromium's DOM has the findings rows"; }
finish
