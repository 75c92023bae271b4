# qemu: -vga none -device virtio-gpu-pci,max_outputs=2,id=gpu
# The drm backend on a virtio-gpu with two heads (card0, Virtual-1 and Virtual-2). Screens are
# plugged in and out through the connectors' sysfs status, which the kernel's connector state
# follows. virtio-gpu polls no connectors, so the kernel sends no event for it: a synthetic
# change event of the card (its uevent file) stands in for the one a cable would bring. Virtual-2 plugged in becomes an output right of Virtual-1;
# Virtual-1 unplugged hands weston-simple-touch to Virtual-2, where a touch still reaches it
# and QEMU's screendump of the second head shows its cross (checks/drm-hotplug.sh).
start_seatd
start_uinput_devices
echo "connectors: $(for c in /sys/class/drm/card0-*; do printf '%s=%s ' "${c##*/}" "$(cat "$c/status")"; done)"
# Virtual-2 starts unplugged, whatever QEMU's head reports.
echo off > /sys/class/drm/card0-Virtual-2/status
touch-router run --backend drm --input-device "$keyboard" > /run/session.log 2>&1 &
session_sockets /run/session.log
outputs() { touch-router msg tree | grep -o '"name":"[^"]*","rect":\[[0-9,]*\]' | tr '\n' ' '; }
echo "outputs at start: $(outputs)"
[ "$(outputs)" = '"name":"Virtual-1","rect":[0,0,1280,800] ' ] || { cat /run/session.log; verdict 30; }

plug() { echo "$2" > /sys/class/drm/card0-$1/status; echo change > /sys/class/drm/card0/uevent; }
plug Virtual-2 on
two() { outputs | grep -q '"name":"Virtual-2","rect":\[1280,0,'; }
until_true two || { outputs; cat /run/session.log; verdict 31; }
echo "after plugging Virtual-2 in: $(outputs)"

weston-simple-touch > /run/client.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 32; }
plug Virtual-1 off
moved() { touch-router msg tree | grep -q '^{"ok":true,"outputs":\[{"id":2,"name":"Virtual-2".*"mapped":true'; }
until_true moved || { touch-router msg tree; cat /run/session.log; verdict 33; }
echo "after unplugging Virtual-1: $(touch-router msg tree)"
# The window kept its place inside the output: (0, 0) of Virtual-2 at layout x 1280.
touch-router msg inject touch down 0 1400 100 > /dev/null && touch-router msg inject touch frame > /dev/null
red() { touch-router msg pixel 1400 100 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 1400 100; cat /run/session.log /run/client.log; verdict 34; }
sleep 0.5
ask_host screendump-head 1 drm-hotplug-head2
grep 'touch-router:' /run/session.log || true
verdict 0
