# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for e2e scripts (sourced). Each script ends with `finish`, which
# prints "e2e: N passed, N failed, N skipped" and exits non-zero on failure.
: "${IDLELAB:=$(pwd)/idlelab}"
E2E_PASS=0 E2E_FAIL=0 E2E_SKIP=0
E2E_TMP=$(mktemp -d /tmp/idlelab-e2e.XXXXXX)
trap 'rm -rf "$E2E_TMP"' EXIT
FIX=${IL_SRCDIR:-.}/tests/fixtures/sysfs

ok() { E2E_PASS=$((E2E_PASS + 1)); echo "ok   $1"; }
bad() { E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | sed 's/^/     /'; }
skip() { E2E_SKIP=$((E2E_SKIP + 1)); echo "skipped: $1"; }

# expect NAME RC PATTERN CMD... : run CMD, want exit code RC and PATTERN (grep -E) in stdout+stderr
expect() {
	name=$1 want_rc=$2 pat=$3
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then bad "$name" "exit $rc, wanted $want_rc; output:
$out"; return 1; fi
	if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -Eq -- "$pat"; then bad "$name" "no /$pat/ in:
$out"; return 1; fi
	ok "$name"
}

# materialize DUMP ROOT: write each path:value line as a file under ROOT. The directories are
# made first by one mkdir (a mkdir per directory from awk was ten thousand processes for the
# audit's 100-host fleet, and most of that test's time on a loaded CI machine).
materialize() {
	mt_split='{
		line = $0
		if (index(line, "/sys/class/powercap/") == 1) {
			rest = substr(line, 21); s = index(rest, "/"); c = index(substr(rest, s), ":"); p = 20 + s + c - 1
		} else p = index(line, ":")
		f = root substr(line, 1, p - 1); d = f; sub(/\/[^\/]*$/, "", d)
	}'
	awk -v root="$2" "$mt_split"' !(d in made) { made[d] = 1; print d }' "$1" | xargs -r -d '\n' mkdir -p -- &&
		awk -v root="$2" "$mt_split"' { print substr(line, p + 1) >> f; close(f) }' "$1"
}

# browser_dom HTML NAME: HTML rendered by headless Chromium into $E2E_TMP/dom.html, NAME passing when
# its script ran without errors (data-report-ok="1"); returns 1 (the caller skips the rest) when
# Chromium is not installed, said as a skip
browser_dom() {
	bd_chrome=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$bd_chrome" ]; then
		skip "chromium not installed (make deps installs it): $2 not checked in a browser"
		return 1
	fi
	"$bd_chrome" --headless --no-sandbox --disable-gpu --dump-dom "file://$1" > "$E2E_TMP/dom.html" 2>/dev/null
	grep -q 'data-report-ok="1"' "$E2E_TMP/dom.html" && ok "$2" || bad "$2"
	return 0
}

finish() {
	echo "e2e: $E2E_PASS passed, $E2E_FAIL failed, $E2E_SKIP skipped"
	[ "$E2E_FAIL" -eq 0 ]
}

# tarball_repo CACHE: the repository the kernel stage imported $TARBALL into in CACHE (kernel/repo.c
# names it by the tarball's SHA-256): that tree's, not whichever import the cache has first
tarball_repo() {
	echo "$1/src/$(sha256sum < "$TARBALL" | cut -c1-16)"
}

# kernel_patch OUT FILE SUBJECT AWK MARK: a one-patch mbox against the kernel tree imported into
# $IDLELAB_CACHE: FILE (a path in the tree) rewritten by the awk program, committed as SUBJECT;
# checked ("the test patch is made") by the text MARK it must carry
kernel_patch() {
	kp_dir="$E2E_TMP/clone-$(basename "$1")"
	git clone -q --shared --no-checkout "$(tarball_repo "$IDLELAB_CACHE")" "$kp_dir" 2>/dev/null &&
	(cd "$kp_dir" && git fetch -q origin refs/idlelab/import && git sparse-checkout set "$(dirname "$2")" &&
		git checkout -q -B w FETCH_HEAD && awk "$4" "$2" > kp.tmp && mv kp.tmp "$2" &&
		git -c user.name=Lab -c user.email=lab@example.org commit -q -am "$3" &&
		git -c user.name=Lab -c user.email=lab@example.org format-patch -q --stdout -1) > "$1"
	grep -q "$5" "$1" && ok "the test patch is made" || bad "the test patch is made"
}

# lab_build_json: the "build" member of a plan for the lab's arm64 kernel (one line of a plan's
# top-level object, with its comma)
lab_build_json() {
	cat <<JSON
 "build": {"arch": "arm64", "cross_compile": "aarch64-linux-gnu-", "config": "allnoconfig",
           "config_fragments": ["$SRC/hosts/labvm/kernel.config"], "targets": ["Image"]},
JSON
}

# want_verdicts NAME JSON [KEY VARIANT VERDICT]...: in `compare --format json` output JSON, each
# metric KEY of VARIANT has VERDICT ("better", "worse", "same", "unknown", ...; "same|unknown": either)
want_verdicts() {
	wv_name=$1 wv_json=$2
	shift 2
	python3 - "$wv_json" "$@" <<'PY' && ok "$wv_name" || bad "$wv_name" "$(head -c 2000 "$wv_json")"
import json, sys
c = json.load(open(sys.argv[1]))
v = {(m["key"], x["variant"]): x["verdict"] for m in c["metrics"] for x in m["variants"]}
w = sys.argv[2:]
for key, var, want in zip(w[0::3], w[1::3], w[2::3]):
    assert v.get((key, var)) in want.split("|"), (key, var, want, v)
PY
}

# bisect_history CLONE REPO REF: 9 commits on top of REPO's refs/idlelab/import (the kernel cache's
# imported $TARBALL), made in CLONE and pushed to REPO as REF: index 3 does not build, index 4
# panics at boot, index 6 makes menu always pick the deepest state (its id in $culprit)
bisect_history() {
	bh=$1
	git clone -q --shared --no-checkout "$2" "$bh" 2>/dev/null && git -C "$bh" fetch -q origin refs/idlelab/import &&
		git -C "$bh" sparse-checkout set drivers/cpuidle/governors init Documentation/admin-guide/pm &&
		git -C "$bh" checkout -q -B hist FETCH_HEAD || { bad "history clone"; return 1; }
	bh_commit() { (cd "$bh" && git add -A && git -c user.name=Lab -c user.email=lab@example.org commit -q -m "$1"); }
	bh_edit() { awk "$2" "$bh/$1" > "$bh/$1.tmp" && mv "$bh/$1.tmp" "$bh/$1"; }
	bh_doc=Documentation/admin-guide/pm/cpuidle.rst bh_gov=drivers/cpuidle/governors
	echo "idlelab test" >> "$bh/$bh_doc"; bh_commit "Documentation: cpuidle: a line (test)"
	echo "/* idlelab test */" >> "$bh/$bh_gov/ladder.c"; bh_commit "cpuidle: ladder: a comment (test)"
	echo "/* idlelab test 2 */" >> "$bh/$bh_gov/teo.c"; bh_commit "cpuidle: teo: a comment (test)"
	echo "#error idlelab test: this does not build" >> "$bh/$bh_gov/teo.c"; bh_commit "cpuidle: teo: break the build (test)"
	bh_edit $bh_gov/teo.c '!/^#error idlelab test/'
	bh_edit init/main.c '{ print } /^\tdo_sysctl_args\(\);$/ && !d { print "\tpanic(\"idlelab test: this kernel does not boot\");"; d = 1 }'
	bh_commit "init: panic before init, teo: build again (test)"
	bh_edit init/main.c '!/idlelab test: this kernel does not boot/'; bh_commit "init: boot again (test)"
	bh_edit $bh_gov/menu.c '{ print } /^static int menu_select\(/ { f = 1 } f && /^\{$/ { print "\treturn drv->state_count - 1;"; f = 0 }'
	bh_commit "cpuidle: menu: Always pick the deepest state (test)"
	echo "idlelab test 2" >> "$bh/$bh_doc"; bh_commit "Documentation: cpuidle: another line (test)"
	echo "/* idlelab test 2 */" >> "$bh/$bh_gov/ladder.c"; bh_commit "cpuidle: ladder: another comment (test)"
	git -C "$bh" push -q "$2" "hist:$3" 2>/dev/null
	culprit=$(git -C "$bh" rev-parse HEAD~2)
}

# bisect_plan FILE NAME HOST REPO: the plan both bisect scripts measure with: the lab's arm64 build,
# REPO's kernel under the lab kernel's name (one object directory: incremental builds), menu,
# the bimodal sleeper, 4 samples a round
bisect_plan() {
	cat > "$1" <<JSON
{"name": "$2", "host": "$3",
$(lab_build_json)
 "kernels": [{"name": "labvm-$KVER", "repo": "$4"}],
 "governors": ["menu"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300,50:2400"}}],
 "iterations": 4, "warmup": 0, "quiesce_s": 0.2}
JSON
}

# The kernel scripts' source tree: Debian's linux-source-6.12 tarball, the lab's default tree
# (lab/labtree.h); KVER names the plans' base kernel ("labvm-$KVER"), as the lab names its own
KVER=6.12
TARBALL=/usr/src/linux-source-$KVER.tar.xz

# kernel_lab_needs TOOL...: skip the script (and exit) unless each TOOL and $TARBALL are here; then
# $IDLELAB_CACHE is the kernel cache shared by the e2e-kernel scripts and the working directory is $SRC
kernel_lab_needs() {
	for t in "$@"; do
		command -v $t >/dev/null || { skip "$t missing (make deps)"; finish; exit $?; }
	done
	[ -f $TARBALL ] || { skip "linux-source-$KVER missing (make deps)"; finish; exit $?; }
	export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
	cd "$SRC"
}

# lab_fresh NAME: lab instance NAME brought down if it was up, then up (checked) from $SRC
lab_fresh() {
	"$IDLELAB" lab down --name $1 >/dev/null 2>&1
	expect "lab up" 0 "lab $1 up" "$IDLELAB" lab up --name $1 --source "$SRC"
}

# kernel_plan FILE NAME [VARIANTS MBOX]: a plan NAME building the lab's arm64 Image from $TARBALL
# (kernel labvm-$KVER), and with VARIANTS (a name with %d) the cumulative variants of the series in MBOX
kernel_plan() {
	kp_series=
	[ -z "${3:-}" ] || kp_series=",
             {\"name\": \"$3\", \"base\": \"labvm-$KVER\", \"series\": {\"mbox\": \"$4\"}}"
	cat > "$1" <<JSON
{"name": "$2", "build": {"arch": "arm64", "cross_compile": "aarch64-linux-gnu-", "config": "allnoconfig",
  "config_fragments": ["$SRC/hosts/labvm/kernel.config"], "targets": ["Image"]},
 "kernels": [{"name": "labvm-$KVER", "tarball": "$TARBALL"}$kp_series]}
JSON
}

# lab_bench NAME: a benchmark's start on the lab host: SRC (absolute), IDLELAB and the kernel cache
# (IDLELAB_CACHE: $E2E_KERNEL_CACHE, else build/e2e-kernel-cache, shared with the kernel e2e);
# returns 1, having said "NAME: skipped", where qemu-system-arm or the lab's linux-source is missing
lab_bench() {
	SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
	IDLELAB=${IDLELAB:-$SRC/idlelab}
	export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
	if ! command -v qemu-system-aarch64 >/dev/null || [ ! -f $TARBALL ]; then
		echo "$1: skipped (qemu-system-arm or linux-source-$KVER missing)"
		return 1
	fi
}
