# SPDX-License-Identifier: GPL-2.0-or-later
# Host facts for `idlelab host check`, as "idlelab.KEY:VALUE" lines. Sent in
# the same remote exec as snapshot.sh, so one round trip gives everything.
kv() { printf 'idlelab.%s:%s\n' "$1" "$2"; }
kv uname_r "$(uname -r)"
kv uname_v "$(uname -v)"
kv arch "$(uname -m)"
kv hostname "$(uname -n)"
kv uid "$(id -u)"
kv user "$(id -un 2>/dev/null)"
if [ "$(id -u)" = 0 ]; then kv sudo root
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then kv sudo yes
else kv sudo no; fi
kv cpu_model "$(sed -n 's/^model name[[:space:]]*: //p; s/^cpu[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
kv cpu_parts "$(sed -n 's/^CPU part[[:space:]]*: //p' /proc/cpuinfo | sort -u | tr '\n' ' ')"
kv cmdline "$(cat /proc/cmdline 2>/dev/null)"
kv hypervisor_flag "$(grep -c -w hypervisor /proc/cpuinfo 2>/dev/null)"
kv hypervisor_type "$(cat /sys/hypervisor/type 2>/dev/null)"
kv cpufreq_driver "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null)"
kv cpufreq_governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
for f in /sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us; do
	[ -r "$f" ] || continue
	c=${f#/sys/devices/system/cpu/cpu}; c=${c%%/*}
	kv "pm_qos.$c" "$(cat "$f")"
done
for t in fio schbench ebizzy adrestia cyclictest hackbench perf pgbench stress-ng taskset; do
	command -v "$t" >/dev/null 2>&1 && kv tool "$t"
done
:
