# SPDX-License-Identifier: GPL-2.0-or-later
# Print the cpuidle sysfs dump idlelab parses (path:value lines, as grep -r
# prints them). POSIX sh, works with busybox ash. Unmatched globs and
# unreadable files (energy_uj is root-only) are simply left out. R (unset on
# real hosts) is a root prefix for fixture trees; the parser strips it.
C=$R/sys/devices/system/cpu
grep -r . $C/cpuidle $C/online $C/cpu[0-9]*/cpuidle $C/cpu[0-9]*/topology/cluster_id \
	$C/cpu[0-9]*/topology/core_id $C/cpu[0-9]*/topology/physical_package_id $C/cpu[0-9]*/cpu_capacity \
	$R/sys/class/powercap/*/name $R/sys/class/powercap/*/energy_uj $R/sys/class/powercap/*/max_energy_range_uj \
	$R/proc/sys/kernel/random/boot_id $R/proc/uptime 2>/dev/null
:
