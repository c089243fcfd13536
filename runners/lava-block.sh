# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel block of samples inside ONE LAVA job: the job's test steps source
# this file from $IL (where the job wrote it with sample.sh and probe.sh),
# call il_begin once and il_sample once per sample. Everything idlelab needs
# comes back through the serial console, which LAVA logs line by line:
# each file is printed base64-encoded between "IDLELAB-BEGIN NAME SHA256
# BYTES" and "IDLELAB-END NAME" lines, so the reader can check it got the
# exact bytes (a console may drop or mangle characters; the checksum says
# so instead of a silently wrong number). lava-test-case records each
# sample's pass/fail and duration for LAVA's own UI. POSIX sh, busybox ash.
#
# A LAVA job is generated before the board's idle states are known, so
# `disable` lists travel as state NAMES and are resolved here, against this
# boot's own table: every (CPU, state) that any configuration of the plan
# disables (IL_UNION, comma-separated names) is written in every sample,
# 1 where this sample's configuration disables it and the value it had at
# boot elsewhere (the same rule as for SSH hosts, run/lease.c).
# lava-test-runner runs the steps with `set -e -x`: trace lines would land inside the
# armoured files, and a grep that finds nothing would end the whole test; so our
# functions run without either (il_quiet) and put them back as they were (il_loud).
IL_C=/sys/devices/system/cpu
il_quiet() {
	il_x= il_e=
	case $- in *x*) il_x=1; set +x ;; esac
	case $- in *e*) il_e=1; set +e ;; esac
}
il_loud() {
	[ -z "$il_e" ] || set -e
	[ -z "$il_x" ] || set -x
}
il_attach() {
	printf 'IDLELAB-BEGIN %s %s %s\n' "$1" "$(sha256sum < "$2" | cut -c1-64)" "$(wc -c < "$2")"
	base64 "$2"
	printf 'IDLELAB-END %s\n' "$1"
}
# il_has NAME LIST: is NAME one of LIST's comma-separated names
il_has() {
	case ",$2," in *",$1,"*) return 0 ;; esac
	return 1
}
# il_begin: kernel messages off the console (they would interleave with our lines), the
# boot's disable values kept, idlelab's private working directory, the probe
il_begin() {
	{ il_quiet; } 2>/dev/null
	dmesg -n 1 2>/dev/null
	mkdir -p "$IL/boot" "$IL/out" || return 1
	own_uid=$(id -u)
	[ -d "$IL/w" ] || mkdir -m 700 "$IL/w" || return 1
	for d in $IL_C/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -r "$d/disable" ] || continue
		c=${d#$IL_C/cpu}; c=${c%%/*}
		cat "$d/disable" > "$IL/boot/$c.${d##*/state}"
	done
	{ sh "$IL/probe.sh"; } > "$IL/out/probe" 2>&1
	il_attach probe "$IL/out/probe"
	il_loud
}
# il_writes DISABLE: "PATH VALUE" pairs for sample.sh (see the rule above)
il_writes() {
	for d in $IL_C/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -r "$d/name" ] || continue
		read -r nm < "$d/name" || continue
		il_has "$nm" "$IL_UNION" || continue
		c=${d#$IL_C/cpu}; c=${c%%/*}
		if il_has "$nm" "$1"; then v=1; else v=$(cat "$IL/boot/$c.${d##*/state}" 2>/dev/null || echo 0); fi
		echo "$d/disable $v"
	done
}
# il_idle NONCE < RUNNER_OUTPUT: "IDLES MISS_PCT" over every CPU and state, from the pre and
# post snapshots in the runner's frames (MISS_PCT "-" without above/below counters or idles).
# Every state's below is a miss, POLL's and snooze's included, as cpuidle_enter_state() counts
# it and fires cpu_idle_miss (drivers/cpuidle/cpuidle.c; docs/formats.md, issue #30).
il_idle() {
	awk -v tag="@@$1" '
	index($0, tag " ") == 1 { split($0, f, " "); sec = f[2]; next }
	sec == "pre" || sec == "post" {
		c = index($0, ":"); if (!c) next
		p = substr($0, 1, c - 1); v = substr($0, c + 1)
		if (p !~ /\/cpuidle\/state[0-9]+\/(usage|above|below)$/) next
		k = p; sub(/\/[a-z]+$/, "", k); a = p; sub(/^.*\//, "", a)
		val[sec, k, a] = v; keys[k] = 1
	}
	END {
		for (k in keys) {
			u += val["post", k, "usage"] - val["pre", k, "usage"]
			if ((("post", k, "above") in val)) { has = 1
				m += val["post", k, "above"] - val["pre", k, "above"]
				m += val["post", k, "below"] - val["pre", k, "below"] }
		}
		if (has && u > 0) printf "%d %.1f\n", u, 100 * m / u; else printf "%d -\n", u
	}'
}
# il_sample SEQ NONCE CASE GOVERNOR DISABLE QUIESCE_S CPUS TIMEOUT_S -- ARGV...
il_sample() {
	{ il_quiet; } 2>/dev/null
	s=$1 n=$2 tc=$3 gov=$4 dis=$5 q=$6 cpus=$7 to=$8
	shift 8
	[ "$1" = "--" ] && shift
	w=$(il_writes "$dis")
	# shellcheck disable=SC2086
	nw=$(printf '%s\n' $w | grep -c .)
	nw=$((nw / 2))
	t0=$(cut -d' ' -f1 /proc/uptime)
	# the nonce on the runner's stdin, its files named by the sequence number (runners/sample.sh;
	# TRACE_KB 0: LAVA jobs take no idle traces yet);
	# frames from a runner that did not exit 0 are not its own (a workload that killed it): none kept
	rs=0
	# shellcheck disable=SC2086
	printf '%s\n' "$n" | sh "$IL/sample.sh" "$s" "" "$q" "$cpus" "$gov" "$to" "$own_uid:$IL/w" 0 "$nw" $w -- "$@" \
		> "$IL/out/$s" 2> "$IL/out/$s.err" || rs=$?
	if [ "$rs" != 0 ]; then
		echo "idlelab: the runner exited $rs" >> "$IL/out/$s.err"
		: > "$IL/out/$s"
	fi
	t1=$(cut -d' ' -f1 /proc/uptime)
	il_attach "sample-$s" "$IL/out/$s"
	il_attach "sample-$s.err" "$IL/out/$s.err"
	r=fail
	grep -q "^@@$n end\$" "$IL/out/$s" && grep -q "^@@$n status 0\$" "$IL/out/$s" && r=pass
	lava-test-case "$tc" --result "$r" --measurement "$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')" --units s
	# the sample's idle entries and the share the kernel counted as misses (above + below, as
	# drivers/cpuidle/cpuidle.c counts them) for LAVA's own UI; idlelab's numbers come from the files
	if [ "$r" = pass ]; then
		il_idle "$n" < "$IL/out/$s" | while read -r idles miss; do
			lava-test-case "$tc-idles" --result pass --measurement "$idles" --units entries
			[ "$miss" = - ] || lava-test-case "$tc-miss" --result pass --measurement "$miss" --units %
		done
	fi
	rm -f "$IL/out/$s" "$IL/out/$s.err"
	il_loud
}
