# SPDX-License-Identifier: GPL-2.0-or-later
# Print the cpuidle sysfs dump idlelab parses (path:value lines, as grep -r
# prints them). POSIX sh, works with busybox ash. Unmatched globs and
# unreadable files (energy_uj and timer_list are root-only) are simply left
# out. R (unset on real hosts) is a root prefix for fixture trees; the parser
# strips it. The clocks come right after the counters: CLOCK_MONOTONIC from
# timer_list's "now at N nsecs" line (-m 1: the rest of that long file is
# never generated) and boottime from /proc/uptime, read by one grep, and the
# suspend counts.
C=$R/sys/devices/system/cpu
grep -r -H . $C/cpuidle $C/online $C/cpu[0-9]*/cpuidle $C/cpu[0-9]*/topology/cluster_id \
	$C/cpu[0-9]*/topology/core_id $C/cpu[0-9]*/topology/physical_package_id $C/cpu[0-9]*/cpu_capacity 2>/dev/null
# both clocks in one process, back to back: read by two, a loaded host's scheduling gap between
# them (tens of ms) would look like a suspend (boottime - monotonic growth)
grep -H -m 1 -e '^now at ' -e '^[0-9]' $R/proc/timer_list $R/proc/uptime 2>/dev/null
H=$R/sys/class/hwmon
grep -r -H . $R/sys/power/suspend_stats/success $R/sys/power/suspend_stats/fail \
	$R/sys/class/powercap/*/name $R/sys/class/powercap/*/energy_uj $R/sys/class/powercap/*/max_energy_range_uj \
	$H/hwmon*/name $H/hwmon*/energy*_input $H/hwmon*/energy*_label \
	$R/proc/sys/kernel/random/boot_id 2>/dev/null
:
