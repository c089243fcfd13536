# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by e2e scripts: start a real OpenSSH sshd on 127.0.0.1 at a free
# port with generated keys, and an idlelab inventory ($HOSTS_DIR) that points
# at it as host "lab1". Stopped (by PID) at exit. SSHD_EXTRA (optional):
# more sshd_config lines (a ForceCommand, say).
SSHD_DIR=$E2E_TMP/sshd
mkdir -p "$SSHD_DIR" && [ "$(id -u)" = 0 ] && mkdir -p /run/sshd
SSHD_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/client"
cp "$SSHD_DIR/client.pub" "$SSHD_DIR/authorized_keys"
cat > "$SSHD_DIR/sshd_config" <<CFG
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $SSHD_DIR/hostkey
PidFile $SSHD_DIR/sshd.pid
AuthorizedKeysFile $SSHD_DIR/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
Subsystem sftp internal-sftp
LogLevel ERROR
MaxStartups 200
MaxSessions 200
${SSHD_EXTRA:-}
CFG
/usr/sbin/sshd -D -e -f "$SSHD_DIR/sshd_config" 2>"$SSHD_DIR/log" &
SSHD_PID=$!
trap 'kill $SSHD_PID 2>/dev/null; wait $SSHD_PID 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
for _ in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $SSHD_PORT), 1)" 2>/dev/null && break
	sleep 0.1
done
printf '[127.0.0.1]:%s %s\n' "$SSHD_PORT" "$(cut -d' ' -f1-2 "$SSHD_DIR/hostkey.pub")" > "$SSHD_DIR/known_hosts"
HOSTS_DIR=$E2E_TMP/hosts
mkdir -p "$HOSTS_DIR"
cat > "$HOSTS_DIR/lab1.json" <<JSON
{"address": "127.0.0.1", "port": $SSHD_PORT, "user": "root", "identity": "$SSHD_DIR/client",
 "known_hosts": "$SSHD_DIR/known_hosts", "host_key_policy": "strict", "connect_timeout_s": 5}
JSON
SSH_CMD="ssh -p $SSHD_PORT -i $SSHD_DIR/client -o UserKnownHostsFile=$SSHD_DIR/known_hosts -o BatchMode=yes root@127.0.0.1"
