# SPDX-License-Identifier: GPL-2.0-or-later
# Host facts for `idlelab host check` and `idlelab audit`, as "idlelab.KEY:VALUE"
# lines. Sent in the same remote exec as snapshot.sh, so one round trip gives
# everything. Files are read by the shell's own `read`, not a cat each: an
# audit runs this on a hundred hosts at once, and forks were most of its cost
# (41 processes became 9; 33 ms became 9 ms on a 2-core KVM guest).
kv() { printf 'idlelab.%s:%s\n' "$1" "$2"; }
# kvf KEY FILE: the file's first line (empty when it cannot be read)
kvf() {
	v=
	[ -r "$2" ] && { IFS= read -r v < "$2" || :; } 2>/dev/null
	printf 'idlelab.%s:%s\n' "$1" "$v"
}
P=/proc/sys/kernel
kvf uname_r $P/osrelease
kvf uname_v $P/version
kv arch "$(uname -m)"
kvf hostname $P/hostname
uid=$(id -u)
kv uid "$uid"
kv user "$(id -un 2>/dev/null)"
if [ "$uid" = 0 ]; then kv sudo root
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then kv sudo yes
else kv sudo no; fi
# one pass over cpuinfo: the model (x86 "model name", powerpc "cpu"), arm64's sorted distinct
# "CPU part"s, and how many lines carry the hypervisor flag (grep -c -w's count)
awk '
	!model && /^model name[[:space:]]*: / { m = $0; sub(/^model name[[:space:]]*: /, "", m); model = 1 }
	!model && /^cpu[[:space:]]*: / { m = $0; sub(/^cpu[[:space:]]*: /, "", m); model = 1 }
	/^CPU part[[:space:]]*: / { p = $0; sub(/^CPU part[[:space:]]*: /, "", p); if (!(p in seen)) { seen[p] = 1; part[np++] = p } }
	/(^|[^[:alnum:]_])hypervisor([^[:alnum:]_]|$)/ { hv++ }
	END {
		for (i = 1; i < np; i++)
			for (j = i; j > 0 && part[j - 1] > part[j]; j--) { t = part[j]; part[j] = part[j - 1]; part[j - 1] = t }
		s = ""; for (i = 0; i < np; i++) s = s part[i] " "
		printf "idlelab.cpu_model:%s\nidlelab.cpu_parts:%s\n", m, s
		cm = ""; if ((getline cm < "/proc/cmdline") < 0) cm = ""
		printf "idlelab.cmdline:%s\nidlelab.hypervisor_flag:%d\n", cm, hv
	}' /proc/cpuinfo 2>/dev/null || { kv cpu_model ""; kv cpu_parts ""; kvf cmdline /proc/cmdline; kv hypervisor_flag ""; }
# a VM? x86: the cpuinfo flag, Xen's /sys/hypervisor, DMI; arm64: the device tree (QEMU virt is
# "linux,dummy-virt"; a hypervisor node); systemd's verdict where it is installed
kvf hypervisor_type /sys/hypervisor/type
kvf dmi_vendor /sys/class/dmi/id/sys_vendor
kvf dmi_product /sys/class/dmi/id/product_name
# NUL-separated lists: tr only where the file exists
nul() { [ -r "$2" ] && kv "$1" "$(tr '\000' ' ' 2>/dev/null < "$2")" || kv "$1" ""; }
nul dt_compatible /proc/device-tree/compatible
if [ -d /sys/firmware/devicetree/base/hypervisor ]; then
	nul dt_hypervisor /sys/firmware/devicetree/base/hypervisor/compatible
	kv dt_hypervisor_node 1
fi
command -v systemd-detect-virt >/dev/null 2>&1 && kv detect_virt "$(systemd-detect-virt --vm 2>/dev/null)"
kvf cpufreq_driver /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver
kvf cpufreq_governor /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
# every cpufreq policy: driver, governor and the CPUs it covers
for d in /sys/devices/system/cpu/cpufreq/policy[0-9]*; do
	[ -d "$d" ] || continue
	n=${d##*/policy}
	kvf "cpufreq.$n.driver" "$d/scaling_driver"
	kvf "cpufreq.$n.governor" "$d/scaling_governor"
	kvf "cpufreq.$n.cpus" "$d/related_cpus"
done
# the tick: HZ and NO_HZ from the running kernel's config, where it can be read
kc= r=
[ -r $P/osrelease ] && IFS= read -r r < $P/osrelease
if [ -r /proc/config.gz ]; then kc=/proc/config.gz
elif [ -n "$r" ] && [ -r "/boot/config-$r" ]; then kc="/boot/config-$r"; fi
kv kconfig_source "$kc"
if [ -n "$kc" ]; then
	if [ "${kc%.gz}" != "$kc" ]; then gzip -dc < "$kc"; else cat "$kc"; fi 2>/dev/null |
		awk -F= '/^CONFIG_(HZ|HZ_PERIODIC|NO_HZ_IDLE|NO_HZ_FULL|NO_HZ)=/ { print "idlelab.kconfig." $1 ":" substr($0, length($1) + 2) }'
fi
# PM QoS: each CPU's resume latency limit, and the processes holding /dev/cpu_dma_latency open
# (a CPU latency request each); one ls, not a readlink per descriptor: root sees every process
for f in /sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us; do
	[ -r "$f" ] || continue
	c=${f#/sys/devices/system/cpu/cpu}; c=${c%%/*}
	kvf "pm_qos.$c" "$f"
done
# /proc names are digits and the target a device path: ls's format is safe here
# shellcheck disable=SC2012
ls -l /proc/[0-9]*/fd 2>/dev/null | awk '
	/^\/proc\/[0-9]+\/fd:$/ { split($0, p, "/"); pid = p[3]; next }
	/ -> \/dev\/cpu_dma_latency$/ { if (!(pid in seen)) { seen[pid] = 1; print pid } }' |
	while read -r pid; do kvf "pm_qos_holder.$pid" "/proc/$pid/comm"; done
if [ "$uid" = 0 ]; then kv pm_qos_scan all; else kv pm_qos_scan own; fi
# tuned's profile (a latency profile holds /dev/cpu_dma_latency through its force_latency option)
kvf tuned_profile /etc/tuned/active_profile
for t in fio schbench ebizzy adrestia cyclictest hackbench perf pgbench stress-ng taskset; do
	command -v "$t" >/dev/null 2>&1 && kv tool "$t"
done
:
