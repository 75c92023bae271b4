# libinput's udev backend on a seat taken through libseat (seatd), with a real systemd-udevd:
# the session starts with only a keyboard; a touchscreen made after start-up is picked up,
# listed by `msg devices`, and its tap reaches weston-simple-touch; keys in the "de" layout
# reach wev (evdev's KEY_Y is z there) and Caps Lock lights the keyboard's LED; a touchscreen removed while a finger is down cancels
# that touch for its client, as wev and the trace both show. The display is headless: udev
# input works under any display backend.
/lib/systemd/systemd-udevd --daemon 2>/run/udevd.log
udevadm trigger --action=add
udevadm settle --timeout=30 || echo "udevadm settle timed out"
start_seatd

mkfifo /run/input
uinput-devices --udevd --keyboard-only < /run/input > /run/devices.log 2>&1 &
exec 3>/run/input
until_true grep -q '^/dev/input/' /run/devices.log || { cat /run/devices.log; verdict 21; }
udevadm settle --timeout=30 || true
echo "keyboard at $(grep '^/dev/input/' /run/devices.log)"

printf '[keyboard]\nlayout = "de"\n\n[[input]]\nmatch = "type:touch"\ntap = true\n' > /run/hotplug.toml
touch-router run --backend headless --input udev --config /run/hotplug.toml --output 1920x1080 > /run/session.log 2>&1 &
session_sockets /run/session.log
touch-router msg trace > /run/trace.log 2>&1 &
keyboard_listed() { touch-router msg devices | grep -q '"name":"TouchRouter test keyboard","usb":"7472:0002","type":"keyboard","types":\["keyboard"\]'; }
until_true keyboard_listed || { touch-router msg devices; cat /run/session.log /run/udevd.log; verdict 22; }
echo "devices at start-up: $(touch-router msg devices)"
touch-router msg devices | grep -q 'hotplug touchscreen' && verdict 23

# (b) A touchscreen made after start-up: listed, mapped to the only output, and routed.
weston-simple-touch > /run/client.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 24; }
echo "add-touchscreen" >&3
touch_listed() { touch-router msg devices | grep -q '"name":"TouchRouter hotplug touchscreen","usb":"7472:0003","type":"touch","types":\["touch"\]'; }
until_true touch_listed || { touch-router msg devices; cat /run/session.log /run/devices.log; verdict 25; }
devices=$(touch-router msg devices)
echo "devices after the hotplug: $devices"
echo "$devices" | grep -q '"output":"HEADLESS-1","region":\[0,0,1920,1080\],"transform":"normal","reason":"the only output"' || verdict 26
echo "tap 1024 1024 0" >&3
red() { touch-router msg pixel 480 270 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 480 270; cat /run/session.log /run/client.log /run/devices.log; verdict 27; }
echo "pixel at (480, 270) after a tap on the new touchscreen: $(touch-router msg pixel 480 270)"
grep -q 'device add' /run/trace.log || { cat /run/trace.log; verdict 28; }
# The [[input]] table asks a touchscreen for tap-to-click: logged, not fatal.
grep 'hotplug touchscreen: tap: ' /run/session.log || { cat /run/session.log; verdict 37; }

# (d) wev, a new window, takes the keyboard; KEY_Y (21) in the "de" layout is z.
LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L wev > /run/wev.log 2>&1 &
two_windows() { [ "$(touch-router msg tree | grep -o '"mapped":true' | grep -c .)" = 2 ]; }
until_true two_windows || { touch-router msg tree; cat /run/wev.log; verdict 29; }
echo "key 21" >&3
z_seen() { grep -q 'sym: z ' /run/wev.log; }
until_true z_seen || { cat /run/wev.log /run/session.log; touch-router msg focus; verdict 30; }
echo "wev: $(grep 'sym: z ' /run/wev.log | head -n1)"
grep -q 'sym: y ' /run/wev.log && verdict 31
# Caps Lock locks the keymap's Caps, and libinput lights the keyboard's LED (LED_CAPSL, 1).
echo "key 58" >&3
caps_lit() { echo "leds" >&3; sleep 0.2; grep -q '^led 1 1' /run/devices.log; }
until_true caps_lit || { cat /run/devices.log; verdict 38; }
echo "key 58" >&3
caps_off() { echo "leds" >&3; sleep 0.2; grep -q '^led 1 0' /run/devices.log; }
until_true caps_off || { cat /run/devices.log; verdict 39; }
echo "keyboard LEDs: $(grep '^led ' /run/devices.log | tr '\n' ' ')"

# (c) A finger down, then the touchscreen destroyed under it: the touch is cancelled for the
# client it was delivered to, and the device leaves `msg devices`.
echo "tree before the touch: $(touch-router msg tree)"
echo "down 1024 1024 0" >&3
down_seen() { grep -q 'touch down' /run/trace.log; }
until_true down_seen || { cat /run/trace.log; verdict 32; }
echo "remove-touchscreen" >&3
removed() { grep -q 'device remove' /run/trace.log; }
until_true removed || { cat /run/trace.log /run/devices.log; verdict 33; }
sleep 1
echo "trace from the touch on:"
sed -n '/touch down/,$p' /run/trace.log | head -n 20
sed -n '/touch down/,$p' /run/trace.log | grep -q 'cancel' || verdict 34
echo "wev's touch lines: $(grep -A1 'wl_touch' /run/wev.log | tr '\n' ' ' | head -c 600)"
if grep -q 'wl_touch\] down' /run/wev.log; then
    grep -q 'wl_touch\] cancel' /run/wev.log || verdict 35
fi
gone() { ! touch-router msg devices | grep -q 'hotplug touchscreen'; }
until_true gone || { touch-router msg devices; verdict 36; }
echo "devices after the removal: $(touch-router msg devices)"
verdict 0
