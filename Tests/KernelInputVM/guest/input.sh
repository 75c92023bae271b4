# The session on kernel input devices read by path: a tap goes kernel evdev → libinput →
# the router → wl_touch → weston-simple-touch, which draws a cross where it was touched;
# `touch-router msg pixel` reads the cross back. Then a key goes the same way to wev. Then a
# second session with a 90° output and a [[touchscreen]] table: the tap lands where the
# rotation puts it.
start_uinput_devices
touch-router run --output 1920x1080 --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session=$!
session_sockets /run/session.log
weston-simple-touch > /run/client.log 2>&1 &
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
session_sockets /run/rotated.log
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
