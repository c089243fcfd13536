# The lab's initramfs (embedded in idlelab; run by lab/lab.c as sh -c with
# arguments): DIR SRC DEBARCH TRIPLE INTERP WLARCH HOSTSDIR. DIR has debs/ (the
# Debian packages of DEBARCH listed in SRC/HOSTSDIR/packages) and the keys; the
# root is made of busybox, dropbear, sftp-server, kexec, flock and cyclictest with the
# libraries they need (in /lib/TRIPLE, the loader linked at INTERP), idlelab's
# static workloads for WLARCH, and SRC/hosts/labvm/init as /init.
set -e; d=$1; src=$2; a=$3; triple=$4; interp=$5; wl=$6; hd=$7; root=$d/root; rm -rf "$d/x" "$root"; mkdir -p "$d/x"
for f in "$d"/debs/*_"$a".deb; do dpkg -x "$f" "$d/x"; done
mkdir -p "$root"/bin "$root"/sbin "$root"/usr/bin "$root"/usr/sbin "$root"/usr/local/bin "$root/lib/$triple" "$root"/usr/lib/openssh "$root"/etc/dropbear "$root"/root/.ssh "$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/run "$root"/var/log
cp "$d/x/bin/busybox" "$root/bin/busybox"; ln -sf busybox "$root/bin/sh"
cp "$d/x/usr/sbin/dropbear" "$root/usr/sbin/"
cp "$d/x/usr/lib/openssh/sftp-server" "$root/usr/lib/openssh/"
ln -sf openssh/sftp-server "$root/usr/lib/sftp-server"
cp "$d/x/sbin/kexec" "$root/sbin/"
cp "$d/x/usr/bin/flock" "$root/usr/bin/"
cp "$d/x/usr/bin/cyclictest" "$root/usr/bin/"
lib=$root/lib/$triple; more=1
while [ $more = 1 ]; do more=0
 for f in "$root/bin/busybox" "$root/usr/sbin/dropbear" "$root/usr/lib/openssh/sftp-server" "$root/sbin/kexec" "$root/usr/bin/flock" "$root/usr/bin/cyclictest" "$lib"/*; do [ -f "$f" ] || continue
  for l in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
   [ -e "$lib/$l" ] && continue; p=$(find "$d/x" -name "$l" | head -n 1)
   [ -n "$p" ] || { echo "$l (needed by ${f##*/}) is in no package of $hd/packages" >&2; exit 1; }
   cp -L "$p" "$lib/"; more=1; done; done; done
mkdir -p "$root${interp%/*}"; ln -sf "/lib/$triple/${interp##*/}" "$root$interp"
cp "$src/hosts/labvm/init" "$root/init"; chmod 755 "$root/init"
cp "$src/build/workloads/$wl"/* "$root/usr/local/bin/"
cp "$d/host_key" "$root/etc/dropbear/host_key"; chmod 600 "$root/etc/dropbear/host_key"
cp "$d/lab_key.pub" "$root/root/.ssh/authorized_keys"
chmod 700 "$root/root" "$root/root/.ssh"; chmod 600 "$root/root/.ssh/authorized_keys"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
printf 'root:x:0:\ntty:x:5:\n' > "$root/etc/group"
echo 'root:*:19000:0:99999:7:::' > "$root/etc/shadow"; echo /bin/sh > "$root/etc/shells"
printf '127.0.0.1 localhost labvm\n' > "$root/etc/hosts"
(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) | gzip -9 > "$d/initramfs.tmp"
mv "$d/initramfs.tmp" "$d/initramfs.cpio.gz"; rm -rf "$d/x"
