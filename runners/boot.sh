# SPDX-License-Identifier: GPL-2.0-or-later
# Deploy and start a built kernel: `boot.sh kexec|grub UID:DIR RELEASE [CMDLINE]`,
# and `boot.sh grub-entry GRUB_CFG RELEASE` (the one-shot entry's id, alone).
# DIR holds what idlelab uploaded: image, and optionally modules.tar (installed
# as /lib/modules/RELEASE) and initrd. The reboot starts one second later in
# the background, so this exec returns and idlelab sees the host go down.
# Output: "idlelab.boot:..." lines; a refusal is one "idlelab.boot_fail:..." line.
say() { printf 'idlelab.boot:%s\n' "$*"; }
fail() { printf 'idlelab.boot_fail:%s\n' "$*"; exit 3; }

# submenu_id>entry_id of the first non-recovery entry booting vmlinuz-RELEASE
grub_entry() {
	awk -v rel="$2" '
	function id(line,   s) {
		if (match(line, /\$menuentry_id_option '\''[^'\'']*'\''/)) {
			s = substr(line, RSTART, RLENGTH); sub(/^[^'\'']*'\''/, "", s); sub(/'\''$/, "", s); return s
		}
		return ""
	}
	/^submenu / { sub_id = id($0); next }
	/^}/ { sub_id = ""; entry = ""; next }
	/^[ \t]*menuentry / { entry = ($0 ~ /recovery mode/) ? "" : id($0); next }
	/^[ \t]*linux[ \t]/ && entry != "" {
		n = split($2, part, "/")
		if (part[n] == "vmlinuz-" rel) { print (sub_id != "" ? sub_id ">" : "") entry; exit }
	}' "$1"
}

what=$1; dir=$2; rel=$3; cmdline=$4
case $what in
grub-entry)
	e=$(grub_entry "$dir" "$rel"); [ -n "$e" ] || fail "no GRUB entry boots vmlinuz-$rel in $dir"
	echo "$e"; exit 0 ;;
kexec|grub) ;;
*) fail "unknown step '$what'" ;;
esac
# DIR comes as UID:DIR: idlelab's own directory (own.sh, prepended), checked again here as root
own_fail() { fail "boot directory: $*"; }
own_uid=${dir%%:*} dir=${dir#*:}
own "$dir"
[ -f "$dir/image" ] || fail "no image in $dir"
if [ -f "$dir/modules.tar" ]; then
	# only lib/modules/RELEASE/... may come out of the archive, whatever it holds
	bad=$(tar -tf "$dir/modules.tar" | while read -r e; do
		case $e in
		*..*) echo "$e"; break ;;
		lib/modules/"$rel" | lib/modules/"$rel"/* | ./lib/modules/"$rel" | ./lib/modules/"$rel"/*) ;;
		. | ./ | lib | lib/ | lib/modules | lib/modules/ | ./lib | ./lib/ | ./lib/modules | ./lib/modules/) ;;
		*) echo "$e"; break ;;
		esac
	done)
	[ -z "$bad" ] || fail "modules.tar holds '$bad', outside lib/modules/$rel: not installed"
	tar -xf "$dir/modules.tar" -C / || fail "cannot install the modules of $rel"
	[ -d "/lib/modules/$rel" ] || fail "modules.tar has no lib/modules/$rel"
	if command -v depmod >/dev/null 2>&1; then depmod "$rel" || fail "depmod $rel failed"; fi
	say "modules in /lib/modules/$rel"
fi
if [ "$what" = kexec ]; then
	command -v kexec >/dev/null 2>&1 || fail "no kexec on the host (install kexec-tools)"
	[ -n "$cmdline" ] || cmdline=$(cat /proc/cmdline)
	if [ -f "$dir/initrd" ]; then
		kexec -l "$dir/image" --initrd="$dir/initrd" --command-line="$cmdline" >&2 || fail "kexec -l failed"
	else
		kexec -l "$dir/image" --command-line="$cmdline" >&2 || fail "kexec -l failed"
	fi
	say "kexec loaded, command line: $cmdline"
	(sleep 1; sync; kexec -e) </dev/null >/dev/null 2>&1 &
	exit 0
fi
# grub: install as /boot/vmlinuz-RELEASE, one-shot entry, reboot; the next normal boot falls back
for c in /boot/grub/grub.cfg /boot/grub2/grub.cfg; do [ -f "$c" ] && cfg=$c && break; done
[ -n "$cfg" ] || fail "no /boot/grub/grub.cfg or /boot/grub2/grub.cfg on the host"
cp "$dir/image" "/boot/vmlinuz-$rel" || fail "cannot write /boot/vmlinuz-$rel"
if [ -f "$dir/initrd" ]; then
	cp "$dir/initrd" "/boot/initrd.img-$rel" || fail "cannot write /boot/initrd.img-$rel"
elif command -v update-initramfs >/dev/null 2>&1; then
	update-initramfs -c -k "$rel" >&2 || fail "update-initramfs -c -k $rel failed"
elif command -v dracut >/dev/null 2>&1; then
	dracut -f "/boot/initramfs-$rel.img" "$rel" >&2 || fail "dracut for $rel failed"
fi
if command -v update-grub >/dev/null 2>&1; then update-grub >&2 || fail "update-grub failed"
elif command -v grub2-mkconfig >/dev/null 2>&1; then grub2-mkconfig -o "$cfg" >&2 || fail "grub2-mkconfig failed"
else grub-mkconfig -o "$cfg" >&2 || fail "grub-mkconfig failed"; fi
e=$(grub_entry "$cfg" "$rel"); [ -n "$e" ] || fail "no GRUB entry boots vmlinuz-$rel in $cfg after regenerating it"
if command -v grub-reboot >/dev/null 2>&1; then grub-reboot "$e" >&2 || fail "grub-reboot failed"
else grub2-reboot "$e" >&2 || fail "grub2-reboot failed"; fi
say "one-shot GRUB entry $e"
(sleep 1; sync; reboot) </dev/null >/dev/null 2>&1 &
exit 0
