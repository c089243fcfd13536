#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package as a user gets it (#31), as root on a Debian 12 machine where
# `make deb` has built ./idlelab_*.deb (tests/fresh-root.sh runs it in a new root):
# it installs; from /, `idlelab workload list` lists the shipped definitions, `idlelab
# host list` shows a host file put in ~/.config/idlelab/hosts, `man idlelab-run` shows
# the options of `idlelab help run`, `man idlelab-compare` renders, `idlelab compare`
# runs on a shipped example, bash completes `idlelab com<TAB>` and `idlelab compare
# --vi<TAB>`; `apt purge` leaves nothing of idlelab behind. Ends with "deb-check: N
# passed, N failed".
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive
deb=$(ls "$(pwd)"/idlelab_*.deb 2>/dev/null | tail -n 1)
[ -n "$deb" ] || { echo "deb-check: no ./idlelab_*.deb (make deb)" >&2; exit 1; }
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/     /'; }
check() { local name=$1; shift; if out=$("$@" 2>&1); then ok "$name"; else bad "$name" "$out"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# man-db to read the pages (Recommends are off in a minimal root)
command -v man > /dev/null || apt-get install -y -qq man-db > /dev/null
check "apt install ./$(basename "$deb")" apt-get install -y -qq "$deb"
cd / || exit 1
check "from /: workload list lists the shipped definitions" \
	sh -c 'idlelab workload list | grep -q "^fio " && idlelab workload list | grep -q "^pingpong "'
mkdir -p ~/.config/idlelab/hosts
sed 's/"rk3399"/"mybox"/' /usr/share/doc/idlelab/examples/hosts/rk3399.json > ~/.config/idlelab/hosts/mybox.json
check "from /: host list shows a host file in ~/.config/idlelab/hosts" sh -c 'idlelab host list | grep -q "^mybox "'
check "from /: paths names the installation" sh -c 'idlelab paths | grep -q "/usr/share/idlelab/workloads .*installed"'
# the long options of the rendered page and of help, in order
man -P cat idlelab-run 2> /dev/null | sed -n '/^OPTIONS/,/^[A-Z]/p' | grep -oE '^ +(-[a-z], )?--[a-z-]+' |
	grep -v -- '--help' | sed 's/.*--//' > "$work/man"
idlelab help run | grep -oE '^ +(-[a-z], )?--[a-z-]+' | sed 's/.*--//' > "$work/help"
if [ -s "$work/man" ] && cmp -s "$work/man" "$work/help"; then ok "man idlelab-run shows the options of idlelab help run ($(wc -l < "$work/man"))"
else bad "man idlelab-run shows the options of idlelab help run" "$(diff "$work/man" "$work/help")"; fi
check "man idlelab-compare" sh -c 'man -P cat idlelab-compare 2>/dev/null | grep -q -- "--view"'
check "from /: idlelab compare on a shipped example" sh -c 'cd /usr/share/doc/idlelab/examples/compare &&
	idlelab compare menu.txt teo.txt --better lower | grep -q "^Verdict: teo better"'
comp() { bash -c '. /usr/share/bash-completion/completions/idlelab; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _idlelab
	echo "${COMPREPLY[*]}"' bash "$@"; }
[ "$(comp idlelab com)" = compare ] && ok "bash completes idlelab com<TAB>" || bad "bash completes idlelab com<TAB>" "$(comp idlelab com)"
[ "$(comp idlelab compare --vi)" = --view ] && ok "bash completes idlelab compare --vi<TAB>" ||
	bad "bash completes idlelab compare --vi<TAB>" "$(comp idlelab compare --vi)"

dpkg -L idlelab > "$work/files"
check "apt purge idlelab" apt-get purge -y -qq idlelab
left=$(while read -r f; do [ -d "$f" ] || [ ! -e "$f" ] || echo "$f"; done < "$work/files"
	for d in /usr/share/idlelab /usr/lib/idlelab /usr/share/doc/idlelab /etc/idlelab; do [ ! -e "$d" ] || echo "$d"; done
	dpkg -l idlelab 2> /dev/null | grep '^[a-z][a-z] ')
[ -z "$left" ] && ok "apt purge leaves nothing of idlelab behind" || bad "apt purge leaves nothing of idlelab behind" "$left"
rm -rf ~/.config/idlelab
echo "deb-check: $pass passed, $fail failed"
[ "$fail" = 0 ]
