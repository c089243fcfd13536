#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The idlelab CLI against a real sshd on loopback: inventory commands, host
# check, snapshot and governor over SSH, and clear errors for bad hosts.
. "$(dirname "$0")/lib.sh"
if [ ! -x /usr/sbin/sshd ] || ! command -v python3 >/dev/null; then
	skip "sshd or python3 missing (run make deps)"; finish; exit $?
fi
. "$(dirname "$0")/sshd.sh"
export IDLELAB_HOSTS=$HOSTS_DIR

expect "host list shows the inventory" 0 "lab1 +root@127.0.0.1:$SSHD_PORT" "$IDLELAB" host list
expect "host show prints the config" 0 '"host_key_policy": "strict"' "$IDLELAB" host show lab1
expect "host check over ssh" 0 "host lab1: reachable via ssh, auth publickey" "$IDLELAB" host check lab1
expect "host check --json" 0 '"transport": "ssh"' "$IDLELAB" host check lab1 --json
expect "host check of the local machine" 0 "host local: reachable via local" "$IDLELAB" host check local
expect "snapshot --host" 0 "host lab1 +driver" "$IDLELAB" snapshot --host lab1
"$IDLELAB" snapshot --host lab1 --json -o "$E2E_TMP/r.json" && "$IDLELAB" snapshot --json -o "$E2E_TMP/l.json"
expect "remote and local snapshots of this machine diff cleanly" 0 "boot_id unchanged" \
	"$IDLELAB" diff "$E2E_TMP/r.json" "$E2E_TMP/l.json"
expect "governor get --host" 0 "^[a-z]+$" "$IDLELAB" governor get --host lab1
expect "governor set --host validates" 1 "host 'lab1': governor 'nope' not in available_governors" \
	"$IDLELAB" governor set nope --host lab1
expect "unknown host" 1 "host 'nosuch': no inventory file" "$IDLELAB" snapshot --host nosuch
printf '{"address": "127.0.0.1", "port": "x"}\n' > "$HOSTS_DIR/broken.json"
expect "broken inventory names file and key" 1 "broken.json: port: expected an integer" "$IDLELAB" host check broken
printf '{"address": "127.0.0.1", "port": %s, "identity": "%s", "known_hosts": "%s"}\n' \
	"$SSHD_PORT" "$SSHD_DIR/client" "$E2E_TMP/empty_kh" > "$HOSTS_DIR/newkey.json"
: > "$E2E_TMP/empty_kh"
expect "unknown host key refused (strict by default)" 1 "unknown host key .*SHA256:" "$IDLELAB" host check newkey
# a FIFO planted under a host file's name: a clear error at once, never a hang
mkfifo "$HOSTS_DIR/x.json"
expect "a FIFO in hosts/ is refused, not waited on" 1 "x.json': not a regular file" timeout 10 "$IDLELAB" host show x
expect "host list goes on past it" 0 "lab1" timeout 10 "$IDLELAB" host list
rm -f "$HOSTS_DIR/x.json"
finish
