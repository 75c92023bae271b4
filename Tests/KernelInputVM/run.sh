#!/usr/bin/env bash
# The session on real kernel input devices: boots Debian's own kernel under QEMU with an
# initramfs holding the given touch-router, weston-simple-touch, wev, and a uinput
# touchscreen and keyboard. A tap goes kernel evdev → libinput → the router → wl_touch →
# weston-simple-touch, which draws a cross where it was touched; `touch-router msg pixel`
# reads the cross back. Then a key goes the same way to wev, which prints it. Then a second
# session with a 90° output and a [[touchscreen]] table: the tap lands where the rotation puts it.
#   Tests/KernelInputVM/run.sh .build/release/touch-router
# Needs qemu-system-x86, busybox-static, cpio, gcc, weston, wev and coreutils (.ci/setup installs them).
# Prints "1 passed, 0 failed" or "0 passed, 1 failed" and exits accordingly.
set -euo pipefail
router=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Debian's kernel and its evdev and uinput modules, unpacked from the package without installing it.
image=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
apt-get download -q "$image" >/dev/null 2>&1 || { apt-get update -qq && apt-get download -q "$image" >/dev/null; }
version=${image#linux-image-}
dpkg-deb --fsys-tarfile "$image"_*.deb | tar -x --wildcards "./boot/vmlinuz-$version" \
    "./lib/modules/$version/kernel/drivers/input/misc/uinput.ko" "./lib/modules/$version/kernel/drivers/input/evdev.ko"

root=$work/root
mkdir -p "$root"/usr/bin "$root"/usr/lib/modules "$root"/usr/share "$root"/{proc,sys,dev,run,tmp}
for link in bin lib lib64 sbin; do ln -s usr/$link "$root/$link" 2>/dev/null || true; done
mkdir -p "$root"/usr/lib64 "$root"/usr/sbin
cp /bin/busybox "$root"/usr/bin/
for applet in sh mount insmod cat grep sed sleep mkdir mkfifo dd printf poweroff head; do ln -s busybox "$root/usr/bin/$applet"; done
cp "lib/modules/$version/kernel/drivers/input/misc/uinput.ko" "lib/modules/$version/kernel/drivers/input/evdev.ko" "$root"/usr/lib/modules/
gcc -O2 -o "$root"/usr/bin/uinput-devices "$here/uinput-devices.c"
cp "$router" "$root"/usr/bin/touch-router
cp /usr/bin/weston-simple-touch /usr/bin/wev "$root"/usr/bin/
# Every library they load, at the path they load it from (the Swift runtime's included).
for program in "$root"/usr/bin/touch-router "$root"/usr/bin/weston-simple-touch "$root"/usr/bin/wev "$root"/usr/bin/uinput-devices; do
    for library in $(ldd "$program" | grep -oE '/[^ ]+'); do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
done
cp -a /usr/share/libinput "$root"/usr/share/
# What stdbuf preloads, so that wev's lines reach its log as it prints them.
mkdir -p "$root"/usr/libexec/coreutils && cp /usr/libexec/coreutils/libstdbuf.so "$root"/usr/libexec/coreutils/
mkdir -p "$root"/usr/share/X11 && cp -a /usr/share/X11/xkb "$root"/usr/share/X11/

cat > "$root"/init <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp; mkdir -p /dev/shm; mount -t tmpfs tmpfs /dev/shm
insmod /usr/lib/modules/uinput.ko; insmod /usr/lib/modules/evdev.ko
# Waits up to 20 s for a command to succeed.
until_true() { i=0; while ! "$@" >/dev/null 2>&1; do i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.1; done; }
verdict() { echo "VERDICT $1"; printf "\\$(printf '%03o' "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null; poweroff -f; }

mkfifo /run/input
uinput-devices < /run/input > /run/devices.log 2>&1 &
exec 3>/run/input
two_nodes() { [ "$(grep -c '^/dev/input/' /run/devices.log)" = 2 ]; }
until_true two_nodes || { cat /run/devices.log; verdict 2; }
touchscreen=$(grep '^/dev/input/' /run/devices.log | head -n1)
keyboard=$(grep '^/dev/input/' /run/devices.log | sed -n 2p)
echo "touchscreen at $touchscreen, keyboard at $keyboard"

export XDG_RUNTIME_DIR=/run/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
touch-router run --output 1920x1080 --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session=$!
until_true grep -q TOUCH_ROUTER_SOCKET /run/session.log || { cat /run/session.log; verdict 3; }
export $(grep WAYLAND_DISPLAY /run/session.log) $(grep TOUCH_ROUTER_SOCKET /run/session.log)
weston-simple-touch > /run/client.log 2>&1 &
mapped() { touch-router msg tree | grep -q '"mapped":true'; }
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 4; }
echo "weston-simple-touch mapped: $(touch-router msg tree)"

# 1024/4096 of 1920 by 1024/4096 of 1080: (480, 270), inside the 600x500 window at (0, 0).
echo "tap 1024 1024 0" >&3
red() { touch-router msg pixel 480 270 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 480 270; cat /run/session.log /run/client.log /run/devices.log; verdict 5; }
echo "pixel at (480, 270): $(touch-router msg pixel 480 270)"
echo "beside it: $(touch-router msg pixel 484 270)"
touch-router msg pixel 484 270 | grep -q '"argb":"0x40404040"' || verdict 6

# A new window takes the keyboard; evdev's KEY_A (30) reaches wev as XKB keycode 38.
LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L wev > /run/wev.log 2>&1 &
two_windows() { [ "$(touch-router msg tree | grep -o '"mapped":true' | grep -c .)" = 2 ]; }
until_true two_windows || { touch-router msg tree; cat /run/wev.log; verdict 7; }
echo "key 30" >&3
key_seen() { grep -q 'key: 38; state: 0 (released)' /run/wev.log; }
until_true key_seen || { cat /run/wev.log /run/devices.log /run/session.log; touch-router msg focus; verdict 8; }
echo "wev: $(grep 'key: 38' /run/wev.log | head -n2)"

# A panel turned 90°: an 800x600 mode lies in the layout as 600x800, and the touchscreen is
# mapped to it by a [[touchscreen]] table. Device (3072, 2048) of 4096 is (0.75, 0.5) on the
# panel, which a 90° output puts at (0.5, 0.25) of its layout rectangle: (300, 200). Without
# the transform it would land at (450, 400), inside the same window, which must stay grey.
kill "$session"; wait "$session" 2>/dev/null || true
printf '[[touchscreen]]\nmatch = "TouchRouter test touchscreen"\noutput = "HEADLESS-1"\n' > /run/touch.toml
touch-router run --config /run/touch.toml --output 800x600,transform=90 --input-device "$touchscreen" > /run/rotated.log 2>&1 &
until_true grep -q TOUCH_ROUTER_SOCKET /run/rotated.log || { cat /run/rotated.log; verdict 9; }
export $(grep WAYLAND_DISPLAY /run/rotated.log) $(grep TOUCH_ROUTER_SOCKET /run/rotated.log)
echo "rotated session: $(touch-router msg tree)"
weston-simple-touch > /run/client2.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/rotated.log /run/client2.log; verdict 10; }
devices=$(touch-router msg devices)
echo "devices: $devices"
echo "$devices" | grep -q '"output":"HEADLESS-1","region":\[0,0,600,800\],"transform":"90","reason":"configuration, line 1"' || verdict 11
echo "tap 3072 2048 0" >&3
red_rotated() { touch-router msg pixel 300 200 | grep -q '"argb":"0xffff0000"'; }
until_true red_rotated || { touch-router msg pixel 300 200; cat /run/rotated.log /run/client2.log; verdict 12; }
echo "pixel at (300, 200): $(touch-router msg pixel 300 200)"
echo "where no transform would put it, (450, 400): $(touch-router msg pixel 450 400)"
touch-router msg pixel 450 400 | grep -q '"argb":"0x40404040"' || verdict 13
verdict 0
INIT
chmod +x "$root"/init
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > initrd.gz

status=0
timeout 300 qemu-system-x86_64 -accel tcg -m 1024 -nographic -no-reboot -monitor none \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel "boot/vmlinuz-$version" -initrd initrd.gz \
    -append 'console=ttyS0 quiet panic=-1' </dev/null > serial.log 2>&1 || status=$?
grep -vE '^\s*$' serial.log | grep -vE '^\[ *[0-9.]+\]' | tail -n 20
# isa-debug-exit: the guest's verdict v leaves QEMU with status 2v+1; 1 is a pass.
if [ "$status" -eq 1 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed (QEMU status $status)"; exit 1; fi
