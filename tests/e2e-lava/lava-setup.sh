#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lava-setup.sh ROOT [LABDIR]
#
# Idempotent: turns an existing Debian 12 (bookworm) root directory (e.g. one
# made with `debootstrap --variant=minbase bookworm ROOT http://deb.debian.org/debian`)
# into a one-machine LAVA lab running Debian's own lava-server and lava-dispatcher
# 2023.01-2, without systemd:
#
#   - mounts: ROOT bind-mounted on itself (private), proc, sys (rslave), dev (rslave)
#     (the same approach as idlelab's tests/fresh-root.sh);
#   - a policy-rc.d that forbids every service start by maintainer scripts;
#   - apt: postgresql first (started by hand, so lava-server's postinst can create and
#     migrate its database), then lava-server lava-dispatcher qemu-system-arm cpio curl;
#   - services started by hand, every one inside the root, PIDs in ROOT/run/idlelab-lava/:
#       postgresql 15 (pg_ctlcluster, 127.0.0.1:5432 / unix socket)
#       gunicorn (lava_server.wsgi, eventlet, 2 workers, 127.0.0.1:$LAVA_PORT)
#       lava-publisher (events: ZMQ PUB 127.0.0.1:$LAVA_EVENT_PORT, websocket 127.0.0.1:$LAVA_WS_PORT)
#       lava-scheduler (lava-server manage lava-scheduler, --event-url the publisher)
#       lava-worker (--url http://127.0.0.1:$LAVA_PORT/ --ws-url the publisher, --ping-interval 2)
#     no apache, no celery, no lava-coordinator;
#   - an admin superuser with an API token, written to ROOT/root/idlelab-lava/api-token (0600)
#     and never printed; password in ROOT/root/idlelab-lava/admin-password (0600);
#   - the lab artifacts (Image, initramfs.cpio.gz, labvm.dtb) copied from LABDIR to
#     ROOT/srv/idlelab/ (the originals are never modified), so jobs use file:// URLs;
#   - device-type qemu, worker idlelab-lava-worker, devices $LAVA_DEVICES (default one,
#     qemu-aarch64-01) with a device dictionary for arm64 TCG (-smp 2, 512 MiB);
#   - waits until the worker is Online and every device is Idle/Good (REST API).
#
# Environment: LAVA_PORT (default 8018), LAVA_EVENT_PORT (5518), LAVA_WS_PORT (8019), LAVA_DEVICES (default "qemu-aarch64-01";
# e.g. "qemu-aarch64-01 qemu-aarch64-02"), NICE (default "nice -n 10", for apt),
# WORKER_NICE (default "nice -n 10": lava-worker and so lava-run and QEMU; "" for none).
# Stop everything again with lava-stop.sh ROOT.
set -euo pipefail
ROOT=$(realpath "${1:?usage: lava-setup.sh ROOT [LABDIR]}")
LAB=${2:-/root/.cache/idlelab/lab/arm64-2cpu-512m}
PORT=${LAVA_PORT:-8018}
EPORT=${LAVA_EVENT_PORT:-5518}   # lava-publisher's ZMQ PUB socket (loopback)
WSPORT=${LAVA_WS_PORT:-8019}     # lava-publisher's websocket (loopback)
DEVICES=${LAVA_DEVICES:-qemu-aarch64-01}
WORKER=idlelab-lava-worker
NICE=${NICE:-nice -n 10}
# lava-worker, and so lava-run and QEMU, run under this (a shared 2-core machine); "" for none
WORKER_NICE=${WORKER_NICE-nice -n 10}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
[ "$(id -u)" = 0 ] || { echo "lava-setup: run as root" >&2; exit 1; }
[ -x "$ROOT/usr/bin/apt-get" ] || { echo "lava-setup: $ROOT is not a Debian root" >&2; exit 1; }
grep -q '^12' "$ROOT/etc/debian_version" || { echo "lava-setup: $ROOT is not Debian 12" >&2; exit 1; }
for f in Image initramfs.cpio.gz labvm.dtb; do
	[ -s "$LAB/$f" ] || { echo "lava-setup: $LAB/$f missing (idlelab lab build)" >&2; exit 1; }
done
say() { echo "lava-setup: $(date +%T) $*"; }
T0=$(date +%s)
STATE=$ROOT/root/idlelab-lava          # secrets (0700)
RUN=$ROOT/run/idlelab-lava             # pid files and service logs
mkdir -p "$STATE" "$RUN"
chmod 700 "$STATE"
TIMES=$RUN/timings
: > "$TIMES"

inroot() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb \
		DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "$1"
}
mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; }
alive() { [ -s "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }
# start NAME CMD: run CMD inside the root in its own session, stdout/stderr to RUN/NAME.out
start() {
	local name=$1 cmd=$2
	if alive "$name"; then say "$name already running (pid $(cat "$RUN/$name.pid"))"; return; fi
	setsid chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "exec $cmd" < /dev/null > "$RUN/$name.out" 2>&1 &
	echo $! > "$RUN/$name.pid"
	say "$name started (pid $!)"
}
step() { echo "$1 $2" >> "$TIMES"; say "$1: $2 s"; }

# --- mounts -----------------------------------------------------------------
if ! mounted "$ROOT"; then
	mount --bind "$ROOT" "$ROOT"
	mount --make-private "$ROOT"
fi
mounted "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
if ! mounted "$ROOT/sys"; then mount --rbind /sys "$ROOT/sys"; mount --make-rslave "$ROOT/sys"; fi
if ! mounted "$ROOT/dev"; then mount --rbind /dev "$ROOT/dev"; mount --make-rslave "$ROOT/dev"; fi

# --- packages ---------------------------------------------------------------
printf '#!/bin/sh\n# lava-setup: no service starts from maintainer scripts\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
echo 'APT::Install-Recommends "0"; APT::Install-Suggests "0";' > "$ROOT/etc/apt/apt.conf.d/99idlelab-lava"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
if ! grep -qs bookworm-security "$ROOT/etc/apt/sources.list"; then
	cat > "$ROOT/etc/apt/sources.list" <<-EOF
	deb http://deb.debian.org/debian bookworm main
	deb http://deb.debian.org/debian bookworm-updates main
	deb http://deb.debian.org/debian-security bookworm-security main
	EOF
	rm -f "$ROOT/var/lib/apt/lists/"*_Packages 2>/dev/null || true
fi
pg_start() {
	if ! inroot 'pg_lsclusters -h' | awk '$4 == "online" { f = 1 } END { exit !f }'; then
		inroot 'pg_ctlcluster 15 main start'
		say "postgresql started"
	fi
}
if [ "$(inroot 'dpkg-query -W -f="\${Status}\n" lava-server lava-dispatcher qemu-system-arm cpio curl 2>/dev/null' |
	grep -c 'install ok installed')" != 5 ]; then
	t=$(date +%s)
	say "apt-get update + install postgresql (log: $RUN/apt.log)"
	inroot 'apt-get update -qq' > "$RUN/apt.log" 2>&1
	inroot "$NICE apt-get install -y -q postgresql" >> "$RUN/apt.log" 2>&1
	pg_start
	say "apt-get install lava-server lava-dispatcher qemu-system-arm cpio curl"
	inroot "$NICE apt-get install -y -q lava-server lava-dispatcher qemu-system-arm cpio curl" >> "$RUN/apt.log" 2>&1 ||
		{ tail -n 30 "$RUN/apt.log"; exit 1; }
	step install $(($(date +%s) - t))
fi
pg_start

# --- lava configuration -----------------------------------------------------
t=$(date +%s)
manage() { inroot "lava-server manage $1"; }
manage 'wait database' > /dev/null
manage 'migrate --noinput' > "$RUN/migrate.log" 2>&1 || { tail "$RUN/migrate.log"; exit 1; }

# events: the scheduler wakes on job/device events (published by lava-publisher on
# loopback) instead of only every 20 s; the worker is told of its jobs over the
# publisher's websocket instead of waiting for its next ping
cat > "$ROOT/etc/lava-server/settings.d/50-idlelab-lava.yaml" <<-EOF
# lava-setup.sh: loopback-only event stream
EVENT_NOTIFICATION: true
EVENT_SOCKET: "tcp://127.0.0.1:$EPORT"
EOF

# admin user and API token (never printed)
[ -s "$STATE/admin-password" ] || (umask 077; inroot "python3 -c 'import secrets; print(secrets.token_hex(12))'" > "$STATE/admin-password")
[ -s "$STATE/api-token" ] || (umask 077; inroot "python3 -c 'import secrets; print(secrets.token_hex(32))'" > "$STATE/api-token")
if ! manage 'users details admin' > /dev/null 2>&1; then
	manage "users add admin --superuser --staff --email admin@localhost --passwd $(cat "$STATE/admin-password")" > /dev/null
	say "user admin created"
fi
if ! manage 'tokens list --user admin --csv' 2>/dev/null | grep -q "$(cat "$STATE/api-token")"; then
	manage "tokens add --user admin --description idlelab-lava --secret $(cat "$STATE/api-token")" > /dev/null
	say "API token added (in $STATE/api-token)"
fi

# device type: the stock qemu.jinja2 (/usr/share/lava-server/device-types)
if ! manage 'device-types list' | grep -q '^\* qemu '; then
	manage 'device-types add qemu' > /dev/null
	say "device-type qemu added"
fi
# worker
if ! manage "workers details $WORKER" > /dev/null 2>&1; then
	manage "workers add $WORKER --description 'idlelab idlelab-lava worker (chroot)'" > /dev/null
	say "worker $WORKER added"
fi
manage "workers details $WORKER" | sed -n 's/^token *: //p' > "$STATE/worker-token"
chmod 600 "$STATE/worker-token"

# devices: a device dictionary per device (jinja2, extends qemu.jinja2)
mkdir -p "$ROOT/etc/lava-server/dispatcher-config/devices"
n=0
for d in $DEVICES; do
	n=$((n + 1))
	cat > "$ROOT/etc/lava-server/dispatcher-config/devices/$d.jinja2" <<-EOF
	{% extends 'qemu.jinja2' %}
	{# idlelab arm64 lab under TCG: no KVM on this worker; -cpu cortex-a57 -machine virt are the template's arm64 defaults #}
	{% set no_kvm = True %}
	{% set memory = 512 %}
	{% set mac_addr = '52:54:00:12:34:$(printf %02x $((0x58 + n)))' %}
	{% set extra_options = ['-smp 2', '-no-reboot'] %}
	{# failure injection on the dispatcher, for retry tests: a job action "- command: {name: inject_infra}" #}
	{# fails with InfrastructureError while /run/idlelab-lava/inject-infra holds a count > 0 (decremented each time); #}
	{# "- command: {name: infra_error}" always fails with InfrastructureError #}
	{% set user_commands = {'inject_infra': {'do': '/usr/local/bin/idlelab-lava-inject infra'}, 'infra_error': {'do': '/bin/false'}} %}
	EOF
	if ! manage "devices details $d" > /dev/null 2>&1; then
		manage "devices add $d --device-type qemu --worker $WORKER --description 'idlelab arm64 lab, QEMU TCG'" > /dev/null
		say "device $d added"
	fi
	# a root set up before under another worker name keeps its devices: they are this worker's now
	manage "devices update $d --health GOOD --worker $WORKER" > /dev/null
done
# devices of an earlier setup that are not asked for now are retired (one QEMU per device at most)
for d in $(manage "devices list --csv" 2>/dev/null | awk -F, 'NR > 1 { print $1 }'); do
	case " $DEVICES " in *" $d "*) ;; *) manage "devices update $d --health RETIRED" > /dev/null && say "device $d retired" ;; esac
done
chown -R lavaserver:lavaserver "$ROOT/etc/lava-server/dispatcher-config/devices" 2>/dev/null ||
	inroot 'chown -R lavaserver:lavaserver /etc/lava-server/dispatcher-config/devices'

# failure injection helper used by the device's user commands (see above)
cat > "$ROOT/usr/local/bin/idlelab-lava-inject" <<-'EOF'
#!/bin/sh
# idlelab-lava-inject KIND: exit 1 while /run/idlelab-lava/inject-KIND holds a count > 0 (decremented)
f=/run/idlelab-lava/inject-$1
n=$(cat "$f" 2>/dev/null || echo 0)
case $n in '' | *[!0-9]*) n=0 ;; esac
if [ "$n" -gt 0 ]; then
	echo $((n - 1)) > "$f"
	echo "idlelab-lava-inject: injected a $1 failure ($((n - 1)) more requested)"
	exit 1
fi
echo "idlelab-lava-inject: no $1 failure requested"
EOF
chmod 755 "$ROOT/usr/local/bin/idlelab-lava-inject"

# lab artifacts: copies
mkdir -p "$ROOT/srv/idlelab"
for f in Image initramfs.cpio.gz labvm.dtb; do
	cmp -s "$LAB/$f" "$ROOT/srv/idlelab/$f" || cp "$LAB/$f" "$ROOT/srv/idlelab/$f"
done
chmod 644 "$ROOT/srv/idlelab/"*
step configure $(($(date +%s) - t))

# --- services ---------------------------------------------------------------
t=$(date +%s)
start gunicorn "gunicorn3 lava_server.wsgi --bind 127.0.0.1:$PORT -u lavaserver -g lavaserver \
 --worker-class eventlet --workers 2 --log-level INFO --log-file /var/log/lava-server/gunicorn.log"
start lava-publisher "lava-server manage lava-publisher --level INFO --log-file /var/log/lava-server/lava-publisher.log \
 --host 127.0.0.1 --port $WSPORT"
start lava-scheduler "lava-server manage lava-scheduler --level INFO --log-file /var/log/lava-server/lava-scheduler.log \
 --event-url tcp://127.0.0.1:$EPORT"
start lava-worker "$WORKER_NICE lava-worker --level INFO --url http://127.0.0.1:$PORT/ --ws-url http://127.0.0.1:$WSPORT/ws/ \
 --ping-interval 2 --name $WORKER --token-file /root/idlelab-lava/worker-token --log-file /var/log/lava-dispatcher/lava-worker.log"

say "waiting for the REST API, the worker (a ping after now) and the devices (Idle/Good)"
since=$(date -u +%Y-%m-%dT%H:%M:%S)
ready() {
	inroot "python3 - $PORT $WORKER $since $DEVICES" <<-'EOF'
	import json, sys, urllib.request
	port, worker, since, devices = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
	tok = open("/root/idlelab-lava/api-token").read().strip()
	def get(p):
	    r = urllib.request.Request(f"http://127.0.0.1:{port}/api/v0.2/{p}", headers={"Authorization": "Token " + tok})
	    return json.load(urllib.request.urlopen(r, timeout=10))
	try:
	    w = get(f"workers/{worker}/")
	    ok = w["state"] == "Online" and w["last_ping"][:19] >= since
	    for d in devices:
	        j = get(f"devices/{d}/")
	        ok = ok and j["state"] == "Idle" and j["health"] == "Good" and j["worker_host"] == worker
	except Exception as e:
	    print(e); sys.exit(1)
	sys.exit(0 if ok else 1)
	EOF
}
ok=0
for i in $(seq 1 120); do
	if ready > "$RUN/ready.out" 2>&1; then ok=1; break; fi
	for s in gunicorn lava-publisher lava-scheduler lava-worker; do
		alive $s || { echo "lava-setup: $s died:" >&2; tail -n 20 "$RUN/$s.out" >&2; exit 1; }
	done
	sleep 1
done
[ $ok = 1 ] || { echo "lava-setup: worker/devices not ready after 120 s: $(cat "$RUN/ready.out")" >&2; exit 1; }
step services $(($(date +%s) - t))
step total $(($(date +%s) - T0))
say "ready: http://127.0.0.1:$PORT/ (API token in $STATE/api-token), worker $WORKER Online, devices Idle/Good: $DEVICES"
