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

# materialize DUMP ROOT: write each path:value line as a file under ROOT
materialize() {
	awk -v root="$2" '{
		line = $0
		if (index(line, "/sys/class/powercap/") == 1) {
			rest = substr(line, 21); s = index(rest, "/"); c = index(substr(rest, s), ":"); p = 20 + s + c - 1
		} else p = index(line, ":")
		f = root substr(line, 1, p - 1); d = f; sub(/\/[^\/]*$/, "", d)
		if (!(d in made)) { system("mkdir -p \"" d "\""); made[d] = 1 }
		print substr(line, p + 1) >> f; close(f)
	}' "$1"
}

finish() {
	echo "e2e: $E2E_PASS passed, $E2E_FAIL failed, $E2E_SKIP skipped"
	[ "$E2E_FAIL" -eq 0 ]
}

# kernel_patch OUT FILE SUBJECT AWK: a one-patch mbox against the kernel tree imported into
# $IDLELAB_CACHE: FILE (a path in the tree) rewritten by the awk program, committed as SUBJECT
kernel_patch() {
	kp_dir="$E2E_TMP/clone-$(basename "$1")"
	git clone -q --shared --no-checkout "$(ls -d "$IDLELAB_CACHE"/src/*/ | head -1)" "$kp_dir" 2>/dev/null &&
	(cd "$kp_dir" && git fetch -q origin refs/idlelab/import && git sparse-checkout set "$(dirname "$2")" &&
		git checkout -q -B w FETCH_HEAD && awk "$4" "$2" > kp.tmp && mv kp.tmp "$2" &&
		git -c user.name=Lab -c user.email=lab@example.org commit -q -am "$3" &&
		git -c user.name=Lab -c user.email=lab@example.org format-patch -q --stdout -1) > "$1"
}
