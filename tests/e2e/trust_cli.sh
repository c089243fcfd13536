#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Root trusts only what root could have written (util/trust.h), as root runs
# idlelab on shared lab machines: a workload definition another user owns, or
# that anyone may write, or below a directory another user owns, is neither
# listed nor used, and `idlelab paths -v` says why; a cache anyone may write
# is refused by every command (and shown by `idlelab paths`); relative HOME
# and XDG_* values are ignored with a warning (the XDG Base Directory
# specification). The planted cache thread is in try_cli.sh.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
	skip "not root: the planted files need another owner (chown)"; finish; exit $?
fi
T=$E2E_TMP
H=$T/home
W=$H/.config/idlelab/workloads
mkdir -p "$W" "$T/cwd"
SRC=${IL_SRCDIR:-.}
cp "$SRC/workloads/periodic.json" "$W/mine.json"
cp "$SRC/workloads/periodic.json" "$W/theirs.json" && chown 1234:1234 "$W/theirs.json"
cp "$SRC/workloads/periodic.json" "$W/open.json" && chmod 666 "$W/open.json"
cd "$T/cwd" || exit 1
export HOME="$H" XDG_CONFIG_HOME= XDG_CACHE_HOME= IDLELAB_WORKLOADS= IDLELAB_CACHE=
list=$("$IDLELAB" workload list 2>&1)
printf '%s\n' "$list" | grep -q "^mine " && ! printf '%s\n' "$list" | grep -Eq "^(theirs|open) " &&
	ok "workload list: the user's own definition listed, the one uid 1234 owns and the world-writable one not" ||
	bad "workload list: only what root or this user alone could have written" "$list"
expect "a definition another user owns is refused, naming the file and why" 1 \
	"workload 'theirs': $W/theirs.json: owned by uid 1234 \\(not root or this user\\): refused" \
	"$IDLELAB" workload show theirs
expect "a world-writable definition is refused" 1 "open.json: writable by others \\(mode 0666\\): refused" \
	"$IDLELAB" workload show open
expect "paths -v lists what it refuses and why" 0 "open +$W/open.json \\(refused: .*writable by others" \
	"$IDLELAB" paths -v
# the directory above, owned by another user: the whole user search directory is left out
chown 1234:1234 "$H/.config"
expect "a search directory below another user's directory is not searched" 0 \
	"$W +user +\\(not searched: $H/.config: owned by uid 1234" "$IDLELAB" paths
expect "... so its definitions are not found" 1 "no definition" "$IDLELAB" workload show mine
chown 0:0 "$H/.config"
# a cache anyone may write: every command refuses it, paths shows it
mkdir -p "$T/shared-cache" && chmod 777 "$T/shared-cache"
expect "a world-writable cache is refused" 1 \
	"cache '$T/shared-cache': $T/shared-cache: writable by others \\(mode 0777\\): refused" \
	env IDLELAB_CACHE="$T/shared-cache" "$IDLELAB" workload list
expect "paths shows the refused cache" 0 "^cache: +$T/shared-cache \\(refused: " \
	env IDLELAB_CACHE="$T/shared-cache" "$IDLELAB" paths
expect "a cache not made yet below a trusted directory is fine" 0 "^cache: +$T/new/cache$" \
	env IDLELAB_CACHE="$T/new/cache" "$IDLELAB" paths
# relative HOME and XDG_* are ignored, said once each
expect "relative XDG_CONFIG_HOME: ignored with a warning" 0 "warning: \\\$XDG_CONFIG_HOME is not an absolute path: ignored" \
	env XDG_CONFIG_HOME=rel "$IDLELAB" paths
out=$(env XDG_CONFIG_HOME=rel "$IDLELAB" paths 2>&1)
[ "$(printf '%s\n' "$out" | grep -c 'XDG_CONFIG_HOME is not an absolute path')" = 1 ] &&
	printf '%s\n' "$out" | grep -q "^  $W " &&
	ok "... once, and the default (\$HOME/.config) used instead" ||
	bad "... once, and the default used instead" "$out"
expect "relative XDG_CACHE_HOME: ignored, the default cache used" 0 "^cache: +$H/.cache/idlelab" \
	env XDG_CACHE_HOME=rel "$IDLELAB" paths
finish
