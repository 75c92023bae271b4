#!/usr/bin/env bash
# The session on real kernel devices: boots Debian's own kernel under QEMU with an initramfs
# holding the given touch-router, the real clients (weston-simple-touch, wev) and uinput
# devices, once for each scenario, a guest script in guest/NAME.sh:
#   input  kernel touchscreen and keyboard read by path, a 90° output (guest/input.sh)
#   drm    the drm backend on QEMU's bochs display: a touch on an output turned 90° is drawn
#          under the finger, as QEMU's own screendump and `msg screenshot` both show; then idle,
#          the quiet screen wakes the session far less than once a frame (guest/drm.sh)
#   drm-idle  the drm backend with [idle] blank-after = 2: the CRTC goes off after 2 s without
#          input (sysfs, debugfs and a black screendump); a touch lights it again and reaches no
#          client, the next one reaches wev (guest/drm-idle.sh)
#   drm-hotplug  the drm backend on a two-headed virtio-gpu: screens plugged in and out, and a
#          touchscreen's [[touchscreen]] mapping chosen again as they come and go and on a
#          reload (msg reload, SIGHUP) that changes the table (guest/drm-hotplug.sh)
#   drm-rotate  the drm backend on bochs with a kiosk (wev, weston-simple-touch over it): `msg output
#          set` turns it to portrait (wev configured to it, a finger down cancelled, the CRTC lit),
#          sets 800x600 by a modeset, refuses 1234x567 keeping its mode; an [[output]] table turns
#          it 270 on `msg reload`; each tap lands under the finger in QEMU's screendump (guest/drm-rotate.sh)
#   vt-switch  the drm backend with udev input on seatd: a VT switch away cancels a live touch and
#          stops drawing; the switch back draws the screen again and input flows (guest/vt-switch.sh)
#   hotplug  libinput's udev backend through libseat (seatd) with systemd-udevd: a touchscreen
#          made after start-up is routed, one removed mid-touch cancels it, keys in a "de"
#          layout reach wev (guest/hotplug.sh)
#   present  touch to present on drm (virtio-gpu): TouchRouter, then cage and sway as a user, each
#          with the same client answering uinput strokes; a benchmark, not among the defaults
#          (guest/present.sh, checks/present.sh, present.py)
#   Tests/KernelInputVM/run.sh .build/release/touch-router [SCENARIO ...]   (default: all but present and record)
# VM_KEEP=DIR keeps each scenario's console log and captures in DIR/SCENARIO.
# Needs qemu-system-x86, busybox-static, cpio, gcc, weston, wev, coreutils and python3
# (.ci/setup installs them). Prints "N passed, M failed" and exits non-zero on a failure.
set -euo pipefail
router=$(realpath "$1")
shift
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(input drm drm-idle drm-hotplug drm-rotate vt-switch hotplug)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Debian's kernel and the modules the scenarios load, unpacked from the package without installing it.
image=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
apt-get download -q "$image" >/dev/null 2>&1 || { apt-get update -qq && apt-get download -q "$image" >/dev/null; }
version=${image#linux-image-}
# In the order they load: each needs only those before it.
modules=(input/misc/uinput input/evdev gpu/drm/drm gpu/drm/drm_kms_helper gpu/drm/ttm/ttm gpu/drm/drm_ttm_helper
    gpu/drm/drm_vram_helper gpu/drm/tiny/bochs virtio/virtio_ring virtio/virtio virtio/virtio_pci_modern_dev
    virtio/virtio_pci_legacy_dev virtio/virtio_pci virtio/virtio_dma_buf gpu/drm/drm_shmem_helper gpu/drm/virtio/virtio-gpu)
dpkg-deb --fsys-tarfile "$image"_*.deb | tar -x --wildcards "./boot/vmlinuz-$version" \
    $(for module in "${modules[@]}"; do echo "./lib/modules/$version/kernel/drivers/$module.ko"; done)

root=$work/root
mkdir -p "$root"/usr/bin "$root"/usr/lib/modules "$root"/usr/share "$root"/{proc,sys,dev,run,tmp,scenarios}
for link in bin lib lib64 sbin; do ln -s usr/$link "$root/$link" 2>/dev/null || true; done
mkdir -p "$root"/usr/lib64 "$root"/usr/sbin
cp /bin/busybox "$root"/usr/bin/
for applet in sh mount insmod cat grep sed sleep mkdir mkfifo dd printf poweroff head base64 kill ls chvt pidof chown chmod env; do ln -s busybox "$root/usr/bin/$applet"; done
for module in "${modules[@]}"; do cp "lib/modules/$version/kernel/drivers/$module.ko" "$root"/usr/lib/modules/; done
printf '%s\n' "${modules[@]##*/}" > "$root"/usr/lib/modules/order
gcc -O2 -o "$root"/usr/bin/uinput-devices "$here/uinput-devices.c"
cp "$router" "$(dirname "$router")/libTouchRouterCLI.so" "$root"/usr/bin/
cp /usr/bin/weston-simple-touch /usr/bin/wev "$root"/usr/bin/
# The present scenario's client, cage and sway to compare with, and util-linux's setpriv to
# run them as a user (busybox's cannot change the user).
cp "$(dirname "$router")/touch-router-bench-client" /usr/bin/cage /usr/bin/sway /usr/bin/setpriv "$root"/usr/bin/
# udevd and its rules and hwdb, and seatd, for the hotplug scenario (systemd-udevd is udevadm).
cp /bin/udevadm "$root"/usr/bin/ && mkdir -p "$root"/usr/lib/systemd && ln -s ../../bin/udevadm "$root"/usr/lib/systemd/systemd-udevd
cp -a /lib/udev "$root"/usr/lib/ && cp /usr/sbin/seatd "$root"/usr/sbin/
# Every library they load, at the path they load it from (the Swift runtime's included).
for program in "$root"/usr/bin/touch-router "$root"/usr/bin/libTouchRouterCLI.so "$root"/usr/bin/weston-simple-touch "$root"/usr/bin/wev "$root"/usr/bin/uinput-devices \
    "$root"/usr/bin/touch-router-bench-client "$root"/usr/bin/cage "$root"/usr/bin/sway "$root"/usr/bin/setpriv \
    "$root"/usr/bin/udevadm "$root"/usr/sbin/seatd "$root"/usr/lib/udev/libinput-device-group "$root"/usr/lib/udev/libinput-fuzz-extract; do
    for library in $(ldd "$program" | grep -oE '/[^ ]+'); do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
done
cp -a /usr/share/libinput "$root"/usr/share/
# `libinput record` (Debian's libinput-tools, when installed) and its libraries, for the record
# scenario (guest/record.sh, not among the defaults), which makes the decoder's test data.
if [ -x /usr/libexec/libinput/libinput-record ]; then
    mkdir -p "$root"/usr/libexec/libinput && cp /usr/bin/libinput "$root"/usr/bin/ && cp /usr/libexec/libinput/libinput-record "$root"/usr/libexec/libinput/
    for program in /usr/bin/libinput /usr/libexec/libinput/libinput-record; do
        for library in $(ldd "$program" | grep -oE '/[^ ]+'); do mkdir -p "$root$(dirname "$library")" && cp -L "$library" "$root$library"; done
    done
fi
# What stdbuf preloads, so that wev's lines reach its log as it prints them.
mkdir -p "$root"/usr/libexec/coreutils && cp /usr/libexec/coreutils/libstdbuf.so "$root"/usr/libexec/coreutils/
mkdir -p "$root"/usr/share/X11 && cp -a /usr/share/X11/xkb "$root"/usr/share/X11/
cp "$here"/guest/*.sh "$root"/scenarios/

cat > "$root"/init <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp; mkdir -p /dev/shm; mount -t tmpfs tmpfs /dev/shm
for module in $(cat /usr/lib/modules/order); do insmod /usr/lib/modules/$module.ko; done
export XDG_RUNTIME_DIR=/run/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
. /scenarios/common.sh
scenario=$(sed -n 's/.*scenario=\([a-z-]*\).*/\1/p' /proc/cmdline)
echo "scenario $scenario"
. /scenarios/$scenario.sh
INIT
chmod +x "$root"/init
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > initrd.gz

passed=0 failed=0
for scenario in "${scenarios[@]}"; do
    [ -f "$here/guest/$scenario.sh" ] || { echo "no scenario $scenario: expected one of $(ls "$here/guest" | sed -n 's/\.sh$//p' | grep -v common | tr '\n' ' ')"; failed=$((failed + 1)); continue; }
    echo "== $scenario"
    mkdir -p "$scenario"
    rm -f back.in back.out && mkfifo back.in back.out
    # The guest's console is the first serial port; it asks the host for screendumps there
    # and reads the answers from the second (host.py). No display window: bochs scans out
    # all the same, and QEMU's monitor captures it.
    # A scenario's display: a "# qemu:" line in its script, else QEMU's standard VGA (bochs).
    display=$(sed -n 's/^# qemu: //p' "$here/guest/$scenario.sh")
    status=0
    timeout 400 qemu-system-x86_64 -accel tcg -m 1024 -display none ${display:--vga std} -no-reboot -monitor none \
        -qmp unix:"$work/qmp.sock",server=on,wait=off -serial file:"$scenario/serial.log" -serial pipe:"$work/back" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 -kernel "boot/vmlinuz-$version" -initrd initrd.gz \
        -append "console=ttyS0 quiet panic=-1 scenario=$scenario" </dev/null > "$scenario/qemu.log" 2>&1 &
    qemu=$!
    python3 "$here/host.py" "$scenario/serial.log" "$work/qmp.sock" back.in "$scenario" $qemu &
    host=$!
    wait $qemu || status=$?
    wait $host || true
    tr -d '\r' < "$scenario/serial.log" | grep -vE '^\s*$' | grep -vE '^\[ *[0-9.]+\]' | grep -vE '^[A-Za-z0-9+/=]{60,}$' | tail -n 25
    cat "$scenario/qemu.log"
    # isa-debug-exit: the guest's verdict v leaves QEMU with status 2v+1; 1 is a pass.
    if [ "$status" -eq 1 ] && { [ ! -f "$here/checks/$scenario.sh" ] || bash "$here/checks/$scenario.sh" "$scenario" "$here"; }; then
        echo "$scenario: passed"; passed=$((passed + 1))
    else
        echo "$scenario: failed (QEMU status $status)"; failed=$((failed + 1))
    fi
    # VM_KEEP=DIR keeps each scenario's console, captures and files there.
    if [ -n "${VM_KEEP:-}" ]; then mkdir -p "$VM_KEEP" && cp -r "$scenario" "$VM_KEEP/"; fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
