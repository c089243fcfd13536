# SPDX-License-Identifier: GPL-2.0-or-later
# Print the PM QoS dump idlelab parses (src/idle/pmqos.h): each open file on
# /dev/cpu_dma_latency as "/proc/PID/fd/N:/dev/cpu_dma_latency", each
# holder's "/proc/PID/comm:NAME", how many processes' /proc/PID/fd could not
# be read, the directory or a link in it ("idlelab.unreadable_processes:N":
# only root sees every process's, and not always in a container),
# then the effective CPU latency limit the device reads back (a native s32;
# root only) and each CPU's power/pm_qos_resume_latency_us. POSIX sh, ls, awk
# and od (busybox too). R (unset on real hosts) is a root prefix for fixture
# trees; the parser strips it. /dev/null among ls's operands makes it print
# every directory's "DIR:" header, even when only one process matches. /proc
# is read before the device is opened: the script never sees itself holding it.
ls -l /dev/null $R/proc/[0-9]*/fd 2>&1 | awk '
/^ls: / {
	if ($0 ~ /ermission denied/ && match($0, /\/proc\/[0-9]+\/fd/) && !(substr($0, RSTART, RLENGTH) in refused)) {
		refused[substr($0, RSTART, RLENGTH)] = 1; unreadable++
	}
	next
}
/:$/ { d = substr($0, 1, length($0) - 1); next }
# the device, or a longer path ending in it: a holder in another mount namespace or chroot than
# this shell's shows it by its path from that tree's root (/var/tmp/x/root/dev/cpu_dma_latency)
NF >= 3 && d != "" && $(NF - 1) == "->" && $NF ~ /\/dev\/cpu_dma_latency$/ {
	print d "/" $(NF - 2) ":/dev/cpu_dma_latency"
	if (!(d in held)) { held[d] = 1; order[++n] = d }
}
END {
	for (i = 1; i <= n; i++) {
		c = order[i]; sub(/\/fd$/, "/comm", c)
		while ((getline line < c) > 0) print c ":" line
		close(c)
	}
	print "idlelab.unreadable_processes:" unreadable + 0
}'
v=$(od -An -t d4 -N 4 $R/dev/cpu_dma_latency 2>/dev/null) && [ -n "$v" ] && echo "/dev/cpu_dma_latency:$v"
grep -H . $R/sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us 2>/dev/null
:
