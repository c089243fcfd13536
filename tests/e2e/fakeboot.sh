# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by e2e scripts (after lib.sh): a host whose kernels are built and
# booted in seconds, for the unattended paths (nightly, alerts) where a real
# kernel is not the point (tests/e2e-kernel/ has those). It is this machine
# through a command transport: each command runs in a private mount
# namespace (unshare -m) where /sys/devices/system/cpu is a fixture tree
# (a haltpoll guest), and boot_id, osrelease, /proc/version and uname(1) are
# files of the host's state directory. Its "kernel" is a git repository with
# a Makefile that writes an image holding the tree's file `level`; booting
# (boot method "command", run here) copies that level into the state, gives
# a new boot_id and the build's release. The workload `level` prints the
# booted level plus noise as lat_us (lower is better): a commit that raises
# `level` is a regression idlelab must find.
#   fakeboot_setup NAME: hosts/NAME.json in $HOSTS_DIR; sets FB (its
#     directory), FB_REPO (the kernel repository, branch main), FB_WL (a
#     workloads directory with `level`), FB_PLAN FILE NAME TRACK-JSON writes a
#     nightly plan for it
#   fakeboot_begin NAME: a script's start on it: T (the test's directory),
#     HOSTS_DIR and IDLELAB_CACHE below it, fakeboot_setup NAME; skips (and
#     exits) where this machine cannot bind-mount over /proc files in a
#     private mount namespace
fakeboot_begin() {
	T=$E2E_TMP
	HOSTS_DIR=$T/hosts
	export IDLELAB_HOSTS=$HOSTS_DIR IDLELAB_CACHE=$T/cache
	fakeboot_setup "$1" || { bad "the fake host"; finish; exit 1; }
	if [ "$(unshare -m sh -c 'mount --bind "$0" /proc/version && cat /proc/version' "$FB/state/proc_version" 2>&1)" != \
		"$(cat "$FB/state/proc_version")" ]; then
		skip "cannot bind-mount over /proc files in a private mount namespace here"; finish; exit $?
	fi
}
fakeboot_setup() {
	FB=$E2E_TMP/fb-$1
	FB_REPO=$FB/linux
	FB_WL=$FB/workloads
	mkdir -p "$FB/state" "$FB/home" "$FB_WL" "$HOSTS_DIR"
	chmod 700 "$FB/home"
	materialize "$FIX/x86-haltpoll-2vcpu-before.txt" "$FB/fix"
	own=6.1.0-own
	echo "$own" > "$FB/state/osrelease"
	echo "#1 SMP own" > "$FB/state/version"
	echo "Linux version $own (own@own) #1 SMP own" > "$FB/state/proc_version"
	cat /proc/sys/kernel/random/uuid > "$FB/state/boot_id"
	echo 100 > "$FB/state/level"
	arch=$(uname -m)
	cat > "$FB/uname" <<SH
#!/bin/sh
case "\$1" in -r) cat "$FB/state/osrelease" ;; -m) echo "$arch" ;; *) echo Linux ;; esac
SH
	chmod 755 "$FB/uname"
	# the transport: one private mount namespace per command
	cat > "$FB/exec.sh" <<SH
#!/bin/sh
exec env HOME=$FB/home unshare -m sh -c '
mount --bind "\$0/fix/sys/devices/system/cpu" /sys/devices/system/cpu &&
mount --bind "\$0/state/boot_id" /proc/sys/kernel/random/boot_id &&
mount --bind "\$0/state/osrelease" /proc/sys/kernel/osrelease &&
mount --bind "\$0/state/version" /proc/sys/kernel/version &&
mount --bind "\$0/state/proc_version" /proc/version &&
mount --bind "\$0/uname" /usr/bin/uname && exec sh -c "\$1"' "$FB" "\$1"
SH
	# boot RELEASE IMAGE: the new kernel's level and release, a new boot_id; back: the own kernel
	cat > "$FB/boot.sh" <<SH
#!/bin/sh
S=$FB/state
if [ "\$1" = back ]; then echo 100 > \$S/level; rel=$own; else cat "\$2" > \$S/level; rel=\$1; fi
echo "\$rel" > \$S/osrelease
echo "Linux version \$rel (idlelab@idlelab) #1 SMP fake" > \$S/proc_version
cat /proc/sys/kernel/random/uuid > \$S/boot_id
SH
	chmod 755 "$FB/exec.sh" "$FB/boot.sh"
	cat > "$HOSTS_DIR/$1.json" <<JSON
{"transport": {"exec": ["$FB/exec.sh", "{cmd}"], "push": ["cp", "{src}", "{dst}"]},
 "connect_timeout_s": 5, "command_timeout_s": 60,
 "boot": {"method": "command", "argv": ["$FB/boot.sh", "{release}", "{image}"], "back_argv": ["$FB/boot.sh", "back"],
          "timeout_s": 5}}
JSON
	# the stand-in kernel: configures and "builds" in milliseconds, its image is the tree's level
	G="git -c user.name=T -c user.email=t@example.org -c init.defaultBranch=main"
	mkdir -p "$FB_REPO"
	cat > "$FB_REPO/Makefile" <<'MK'
# a stand-in kernel tree: make -C TREE O=OBJ ARCH=A LOCALVERSION=L defconfig | olddefconfig | bzImage | Image
O ?= .
defconfig allnoconfig olddefconfig:
	@mkdir -p $(O) && echo "CONFIG_IDLELAB_FAKE=y" > $(O)/.config
bzImage Image zImage all:
	@mkdir -p $(O)/arch/$(ARCH)/boot $(O)/include/config
	@echo "6.1.0$(LOCALVERSION)" > $(O)/include/config/kernel.release
	@cat $(CURDIR)/level > $(O)/arch/$(ARCH)/boot/$@
MK
	echo 100 > "$FB_REPO/level"
	$G init -q "$FB_REPO" && $G -C "$FB_REPO" add Makefile level && $G -C "$FB_REPO" commit -q -m "the base" ||
		return 1
	cat > "$FB_WL/level.json" <<JSON
{"description": "the fake host's booted level plus noise (tests/e2e/fakeboot.sh)",
 "argv": ["sh", "-c", "sleep 0.12; echo \"lat_us: \$((\$(cat $FB/state/level) * 10 + \$(od -An -N1 -tu1 /dev/urandom) % 7))\""],
 "parser": "idlelab-kv",
 "metrics": {"lat_us": {"unit": "us", "better": "lower"}}}
JSON
}

# fb_commit LEVEL SUBJECT: a new commit on main setting the level
fb_commit() {
	echo "$1" > "$FB_REPO/level"
	git -c user.name=T -c user.email=t@example.org -C "$FB_REPO" commit -q -am "$2"
}

# fb_plan FILE NAME: a nightly plan on the fake host tracking main of FB_REPO
fb_plan() {
	cat > "$1" <<JSON
{"name": "$2", "host": "${3:-fb}", "governors": ["menu"], "iterations": 4, "warmup": 0,
 "build": {"arch": "$(uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')", "config": "defconfig"},
 "kernels": [{"name": "tip"}],
 "workloads": [{"workload": "level"}],
 "track": {"repo": "$FB_REPO", "branch": "main"}}
JSON
}
