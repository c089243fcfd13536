# SPDX-License-Identifier: GPL-2.0-or-later
# Idle traces (docs/formats.md "idle.trace"), functions for runners/sample.sh
# and runners/cancel.sh (idlelab prepends this file). A traced sample gets a
# tracefs instance of its own, instances/idlelab-ID: its own ring buffers and
# event switches, so nobody else's tracing is touched and several runs can
# trace at once. It records power:cpu_idle (entry with the state index, exit),
# power:cpu_idle_miss, the PM QoS events, and the tick's state at each idle
# entry from timer:tick_stop (the CPU's tick stopped) and sched:sched_switch
# away from the idle task (tick_nohz_idle_exit() restarted it). Events only:
# the function tracer on tick_nohz_idle_stop_tick would patch the idle loop's
# code while CPUs run it, and QEMU's x86 TCG (the x86 lab) dies of that.
# trace_marker lines mark where the snapshots were read.
#   tron ID KB   make and start the instance (KB: buffer_size_kb per CPU); on
#                failure prints why (one line) and returns 1
#   trmark WORD  write idlelab-WORD into the trace
#   troff        stop it and print the trace frame (src/idle/trace.h)
#   trdel ID     remove instance idlelab-ID (and the tracefs mount tron made, when no
#                other idlelab instance is left in it)
trfs() {
	for T in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$T/instances" ] && return 0
	done
	T=/sys/kernel/tracing
	# no tracefs mounted: mount it for the sample only (trdel unmounts it)
	[ -n "$1" ] && [ -d $T ] && mount -t tracefs nodev $T 2>/dev/null && [ -d "$T/instances" ] && Tm=1
}
tron() {
	Tm= Tk=none Te=
	trfs 1 || { echo "no tracefs on the host (a kernel with CONFIG_TRACING; tracefs on /sys/kernel/tracing)"; return 1; }
	I=$T/instances/idlelab-$1
	mkdir "$I" 2> /dev/null || { echo "cannot create the tracefs instance $I"; I=; return 1; }
	echo 0 > "$I/tracing_on"
	echo "$2" 2> /dev/null > "$I/buffer_size_kb" || { echo "cannot make $I/buffer_size_kb $2"; return 1; }
	for e in power/cpu_idle power/cpu_idle_miss power/pm_qos_update_target power/pm_qos_add_request \
		power/pm_qos_update_request power/pm_qos_remove_request timer/tick_stop sched/sched_switch; do
		# cpu_idle_miss came with 6.0, tick_stop needs NO_HZ: events= says which were traced
		[ -d "$I/events/$e" ] || continue
		echo 1 > "$I/events/$e/enable" || { echo "cannot enable $e in $I"; return 1; }
		Te=$Te${Te:+,}${e#*/}
	done
	case ,$Te, in *,cpu_idle,*) ;; *) echo "this kernel has no power:cpu_idle trace event"; return 1 ;; esac
	case ,$Te, in *,tick_stop,*sched_switch,*) Tk=events ;; esac
	echo 1 > "$I/tracing_on"
}
trmark() { echo "idlelab-$1" > "$I/trace_marker"; }
troff() {
	echo 0 > "$I/tracing_on"
	hz=$(gzip -dc < /proc/config.gz 2> /dev/null || cat "/boot/config-$(uname -r)" 2> /dev/null)
	hz=$(echo "$hz" | sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p')
	printf '#idlelab trace v1\n#idlelab hz=%s\n#idlelab tick=%s\n#idlelab events=%s\n' "${hz:-unknown}" "$Tk" "$Te"
	# nohz_full CPUs keep the tick stopped over a task (src/idle/trace.c reads their tick so)
	[ -r /sys/devices/system/cpu/nohz_full ] && echo "#idlelab nohz_full=$(cat /sys/devices/system/cpu/nohz_full)"
	for s in "$I"/per_cpu/cpu[0-9]*/stats; do
		c=${s%/stats}
		awk -F': *' -v c="${c##*/cpu}" '$1 == "entries" { e = $2 } $1 == "overrun" { o = $2 }
			$1 == "commit overrun" { co = $2 } $1 == "dropped events" { d = $2 }
			END { printf "#idlelab cpu=%s entries=%d overrun=%d commit_overrun=%d dropped=%d\n", c, e, o, co, d }' "$s"
	done
	cat "$I/trace"
}
trdel() {
	trfs || return 0
	I=$T/instances/idlelab-$1
	[ -d "$I" ] || return 0
	echo 0 > "$I/tracing_on"
	echo 0 2> /dev/null > "$I/events/enable"
	rmdir "$I" 2> /dev/null
	# the mount tron made goes, unless another sample's instance still needs it
	[ -z "$Tm" ] || ls -d "$T"/instances/idlelab-* > /dev/null 2>&1 || umount "$T" 2> /dev/null
}
