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
# a VM? x86: the cpuinfo flag, Xen's /sys/hypervisor, DMI; arm64: the device tree (QEMU virt is
# "linux,dummy-virt"; a hypervisor node); systemd's verdict where it is installed
kv hypervisor_flag "$(grep -c -w hypervisor /proc/cpuinfo 2>/dev/null)"
kv hypervisor_type "$(cat /sys/hypervisor/type 2>/dev/null)"
kv dmi_vendor "$(cat /sys/class/dmi/id/sys_vendor 2>/dev/null)"
kv dmi_product "$(cat /sys/class/dmi/id/product_name 2>/dev/null)"
kv dt_compatible "$(tr '\000' ' ' 2>/dev/null < /proc/device-tree/compatible)"
if [ -d /sys/firmware/devicetree/base/hypervisor ]; then
	kv dt_hypervisor "$(tr '\000' ' ' 2>/dev/null < /sys/firmware/devicetree/base/hypervisor/compatible)"
	kv dt_hypervisor_node 1
fi
command -v systemd-detect-virt >/dev/null 2>&1 && kv detect_virt "$(systemd-detect-virt --vm 2>/dev/null)"
kv cpufreq_driver "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null)"
kv cpufreq_governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
# every cpufreq policy: driver, governor and the CPUs it covers
for d in /sys/devices/system/cpu/cpufreq/policy[0-9]*; do
	[ -d "$d" ] || continue
	n=${d##*/policy}
	kv "cpufreq.$n.driver" "$(cat "$d/scaling_driver" 2>/dev/null)"
	kv "cpufreq.$n.governor" "$(cat "$d/scaling_governor" 2>/dev/null)"
	kv "cpufreq.$n.cpus" "$(cat "$d/related_cpus" 2>/dev/null)"
done
# the tick: HZ and NO_HZ from the running kernel's config, where it can be read
kc=
if [ -r /proc/config.gz ]; then kc=/proc/config.gz
elif [ -r "/boot/config-$(uname -r)" ]; then kc="/boot/config-$(uname -r)"; fi
kv kconfig_source "$kc"
if [ -n "$kc" ]; then
	if [ "${kc%.gz}" != "$kc" ]; then gzip -dc < "$kc"; else cat "$kc"; fi 2>/dev/null |
		grep -E '^CONFIG_(HZ|HZ_PERIODIC|NO_HZ_IDLE|NO_HZ_FULL|NO_HZ)=' |
		while IFS='=' read -r k v; do kv "kconfig.$k" "$v"; done
fi
# PM QoS: each CPU's resume latency limit, and the processes holding /dev/cpu_dma_latency open
# (a CPU latency request each); one ls, not a readlink per descriptor: root sees every process
for f in /sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us; do
	[ -r "$f" ] || continue
	c=${f#/sys/devices/system/cpu/cpu}; c=${c%%/*}
	kv "pm_qos.$c" "$(cat "$f")"
done
# /proc names are digits and the target a device path: ls's format is safe here
# shellcheck disable=SC2012
ls -l /proc/[0-9]*/fd 2>/dev/null | awk '
	/^\/proc\/[0-9]+\/fd:$/ { split($0, p, "/"); pid = p[3]; next }
	/ -> \/dev\/cpu_dma_latency$/ { if (!(pid in seen)) { seen[pid] = 1; print pid } }' |
	while read -r pid; do kv "pm_qos_holder.$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)"; done
if [ "$(id -u)" = 0 ]; then kv pm_qos_scan all; else kv pm_qos_scan own; fi
# tuned's profile (a latency profile holds /dev/cpu_dma_latency through its force_latency option)
kv tuned_profile "$(cat /etc/tuned/active_profile 2>/dev/null)"
for t in fio schbench ebizzy adrestia cyclictest hackbench perf pgbench stress-ng taskset; do
	command -v "$t" >/dev/null 2>&1 && kv tool "$t"
done
:
