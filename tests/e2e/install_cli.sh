#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab installed like kernel tooling (#31): `make install` with DESTDIR and
# with a PREFIX in a temporary directory, run from a directory outside the
# checkout; the search paths (the user's config shadowing the system's and the
# installed definitions; $IDLELAB_* and --hosts-dir still winning; directories
# another user could write left out), `idlelab paths`, the man pages against
# `help`, the bash completion, and `make uninstall` leaving nothing behind.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
T=$E2E_TMP
ARCH=$(uname -m)
mk() { make -s -C "$SRC" DEVELOPER=1 "$@" > "$T/make.log" 2>&1 || { cat "$T/make.log"; return 1; }; }

# ---- DESTDIR: the layout a package gets, and uninstall ----
if mk install DESTDIR="$T/dest" PREFIX=/usr; then ok "make install DESTDIR=... PREFIX=/usr"; else bad "make install DESTDIR=... PREFIX=/usr"; fi
missing=
for f in usr/bin/idlelab usr/share/idlelab/workloads/fio.json "usr/lib/idlelab/workloads/$ARCH/periodic" \
	usr/share/man/man1/idlelab.1 usr/share/man/man1/idlelab-compare.1 usr/share/man/man1/idlelab-run.1 \
	usr/share/bash-completion/completions/idlelab usr/lib/systemd/system/idlelab-export.timer \
	usr/share/doc/idlelab/README.md usr/share/doc/idlelab/examples/compare/menu.txt \
	usr/share/doc/idlelab/examples/hosts/rk3399.json usr/share/doc/idlelab/examples/plans/teo-vs-menu.json; do
	[ -e "$T/dest/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "install: binary, definitions, workload binaries, man pages, completion, units, docs" ||
	bad "install: binary, definitions, workload binaries, man pages, completion, units, docs" "missing:$missing"
if grep -q '^ExecStart=/usr/bin/idlelab export' "$T/dest/usr/lib/systemd/system/idlelab-export.service" &&
	grep -q 'file:///usr/share/doc/idlelab/nightly.md' "$T/dest/usr/lib/systemd/system/idlelab-nightly@.service" &&
	! grep -rq /usr/local "$T/dest/usr/lib/systemd/system"; then
	ok "install: the systemd units name the installed binary and docs"
else
	bad "install: the systemd units name the installed binary and docs" "$(grep -h 'Exec\|Documentation' "$T/dest/usr/lib/systemd/system/"*)"
fi
mk uninstall DESTDIR="$T/dest" PREFIX=/usr
left=$(find "$T/dest" -mindepth 1 ! -type d 2>/dev/null)
[ -z "$left" ] && ok "make uninstall leaves no file behind" || bad "make uninstall leaves no file behind" "$left"

# ---- PREFIX in a temporary directory, run from elsewhere ----
P=$T/prefix
mk install PREFIX="$P" && ok "make install PREFIX=$P" || bad "make install PREFIX=$P"
IL=$P/bin/idlelab
mkdir -p "$T/elsewhere" "$T/home"
cd "$T/elsewhere" || exit 1
# a clean environment: this user's HOME, no IDLELAB_* of the caller
run() { env -u IDLELAB_HOSTS -u IDLELAB_WORKLOADS -u IDLELAB_WORKLOAD_BIN -u XDG_CONFIG_HOME HOME="$T/home" "$@"; }
expect "from elsewhere: workload list lists the installed definitions" 0 "^fio .*" run "$IL" workload list
expect "from elsewhere: workload list -v names the installed files" 0 "^pingpong +$P/share/idlelab/workloads/pingpong.json" \
	run "$IL" workload list -v
expect "from elsewhere: paths shows the installation and its workload binaries" 0 \
	"workload binaries: +$P/lib/idlelab/workloads" run "$IL" paths
expect "from elsewhere: compare a shipped example" 0 "teo .* better" \
	run "$IL" compare "$P/share/doc/idlelab/examples/compare/menu.txt" "$P/share/doc/idlelab/examples/compare/teo.txt" --better lower

# the user's host file; the system's (PREFIX/etc/idlelab for a PREFIX other than /usr) shadowed by it
U=$T/home/.config/idlelab
mkdir -p "$U/hosts" "$U/workloads" "$P/etc/idlelab/hosts"
chmod 0755 "$U/hosts" "$U/workloads" "$P/etc/idlelab/hosts"
sed 's/"rk3399"/"board"/; s/"address": *"[^"]*"/"address": "user-board.lab"/' "$SRC/examples/hosts/rk3399.json" > "$U/hosts/board.json"
sed 's/"rk3399"/"board"/; s/"address": *"[^"]*"/"address": "system-board.lab"/' "$SRC/examples/hosts/rk3399.json" > "$P/etc/idlelab/hosts/board.json"
sed 's/"rk3399"/"sysonly"/' "$SRC/examples/hosts/rk3399.json" > "$P/etc/idlelab/hosts/sysonly.json"
expect "host list: a host file in ~/.config/idlelab/hosts" 0 "^board " run "$IL" host list
expect "host list: and the system's" 0 "^sysonly " run "$IL" host list
expect "host show: the user's file shadows the system's" 0 "user-board.lab" run "$IL" host show board
expect "host list -v: where each host comes from" 0 "^board .*$U/hosts/board.json" run "$IL" host list -v
expect "paths -v: what a file shadows" 0 "\\(shadows $P/etc/idlelab/hosts/board.json\\)" run "$IL" paths -v
sed 's/"description": *"[^"]*"/"description": "my own fio"/' "$SRC/workloads/fio.json" > "$U/workloads/fio.json"
expect "workload list: the user's definition shadows the installed one" 0 "^fio +my own fio" run "$IL" workload list
expect "XDG_CONFIG_HOME moves the user's directory" 0 "^fio +/.*xdg/idlelab/workloads/fio.json" \
	sh -c "mkdir -p '$T/xdg/idlelab/workloads' && cp '$U/workloads/fio.json' '$T/xdg/idlelab/workloads/' &&
		HOME='$T/home' XDG_CONFIG_HOME='$T/xdg' '$IL' workload list -v"

# the variables and options still win, and replace the search path
mkdir -p "$T/other"
sed 's/"rk3399"/"other"/' "$SRC/examples/hosts/rk3399.json" > "$T/other/other.json"
out=$(run env IDLELAB_HOSTS="$T/other" "$IL" host list 2>&1)
echo "$out" | grep -q '^other ' && ! echo "$out" | grep -q '^board ' && ok "IDLELAB_HOSTS replaces the search path" ||
	bad "IDLELAB_HOSTS replaces the search path" "$out"
out=$(run env IDLELAB_HOSTS="$T/other" "$IL" host list --hosts-dir "$U/hosts" 2>&1)
echo "$out" | grep -q '^board ' && ! echo "$out" | grep -q '^other ' && ok "--hosts-dir wins over IDLELAB_HOSTS" ||
	bad "--hosts-dir wins over IDLELAB_HOSTS" "$out"
expect "IDLELAB_WORKLOADS replaces the search path" 1 "no definition" \
	run env IDLELAB_WORKLOADS="$T/other" "$IL" workload show fio

# a directory others may write is never searched (idlelab runs as root on shared machines)
chmod 0777 "$U/hosts"
expect "paths: a world-writable user directory is not searched, and says why" 0 "$U/hosts .*not searched: $U/hosts: writable by others \\(mode 0777\\)" \
	run "$IL" paths
out=$(run "$IL" host list 2>&1)
echo "$out" | grep -q '^board ' && echo "$out" | grep -q '^sysonly ' && ! echo "$out" | grep -q 'user-board' &&
	[ "$(run "$IL" host show board | grep -c system-board.lab)" = 1 ] &&
	ok "a world-writable user directory: the system's host file counts" || bad "a world-writable user directory: the system's host file counts" "$out"
chmod 0755 "$U/hosts"
if [ "$(id -u)" = 0 ]; then
	chown 65534 "$U/hosts"
	expect "paths: a directory owned by another user is not searched" 0 "$U/hosts .*not searched: $U/hosts: owned by uid 65534" run "$IL" paths
	chown 0 "$U/hosts"
else
	skip "not root: a directory owned by another user"
fi

# ---- man pages: the same options as help, from the same tables ----
for c in run compare host; do
	page=$P/share/man/man1/idlelab-$c.1
	# each .TP entry of OPTIONS as "LEFT<TAB>HELP", roff undone; --help is help's own
	awk '/^\.TP$/ { getline l; getline h; gsub(/\\f[BIR]/, "", l); gsub(/\\-/, "-", l); gsub(/\\-/, "-", h); gsub(/\\e/, "\\", h)
		if (l !~ /^-h, --help/) print l "\t" h }' "$page" > "$T/man.$c"
	"$IL" help "$c" > "$T/help.$c"
	nman=$(wc -l < "$T/man.$c")
	nhelp=$(grep -c '^ *-' "$T/help.$c")
	tab=$(printf '\t')
	miss=$(while IFS=$tab read -r l h; do
		awk -v l="$l" -v h="$h" '{ sub(/^ +/, "") } index($0, l) == 1 && substr($0, length($0) - length(h) + 1) == h { f = 1 }
			END { exit !f }' "$T/help.$c" || echo "$l|$h"
	done < "$T/man.$c")
	[ "$nman" -gt 0 ] && [ "$nman" = "$nhelp" ] && [ -z "$miss" ] && ok "man idlelab-$c: the options of help $c ($nman)" ||
		bad "man idlelab-$c: the options of help $c" "man $nman, help $nhelp; not in help: $miss"
done
if command -v man > /dev/null; then
	expect "man finds idlelab-run under PREFIX/share/man, rendered" 0 "--until-decided" \
		env MANPATH="$P/share/man" MANWIDTH=120 man idlelab-run
else
	skip "man-db not installed: pages not rendered"
fi
expect "help CMD prints the options when not on a terminal, the page installed or not" 0 "--until-decided" "$IL" help run
expect "idlelab(1) lists the commands and the search path" 0 "idlelab/hosts" cat "$P/share/man/man1/idlelab.1"

# ---- bash completion ----
COMP=$P/share/bash-completion/completions/idlelab
# complete WORDS...: COMPREPLY for the last word
complete_() { run env PATH="$P/bin:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _idlelab; echo "${COMPREPLY[*]}"' "$COMP" "$@"; }
[ "$(complete_ idlelab com)" = compare ] && ok "completion: idlelab com<TAB>" || bad "completion: idlelab com<TAB>" "$(complete_ idlelab com)"
[ "$(complete_ idlelab compare --vi)" = --view ] && ok "completion: idlelab compare --vi<TAB>" || bad "completion: idlelab compare --vi<TAB>" "$(complete_ idlelab compare --vi)"
expect "completion: --view's values are the views" 0 "^iterations states clusters misses latency durations$" complete_ idlelab compare --view ""
expect "completion: host's actions" 0 "^list show check$" complete_ idlelab host ""
expect "completion: host show NAME from the search path" 0 "board" complete_ idlelab host show ""
expect "completion: --host NAME" 0 "board.*sysonly" complete_ idlelab run plan.json --host ""
expect "completion: workload names" 0 "^pingpong$" complete_ idlelab workload show pin
mkdir -p "$T/elsewhere/reports/2024-01-01-governors"
expect "completion: run directories for --resume" 0 "reports/2024-01-01-governors" complete_ idlelab run --resume reports/20

mk uninstall PREFIX="$P"
left=$(find "$P" -mindepth 1 ! -type d ! -path "$P/etc/*" 2>/dev/null)
[ -z "$left" ] && ok "make uninstall PREFIX=...: nothing of idlelab left (the admin's etc kept)" || bad "make uninstall PREFIX=..." "$left"
finish
