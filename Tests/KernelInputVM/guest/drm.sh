# The drm backend on QEMU's bochs display (/dev/dri/card0, connector Virtual-1), with the
# screen turned 90°: an 800x600 mode lies in the layout as 600x800. The touchscreen is mapped
# to it; device (3072, 2048) of 4096 is (600, 300) on the panel, under the finger, which the
# turn puts at (300, 200) of the layout. weston-simple-touch draws its cross there, and two
# captures must find it: `msg screenshot` (the layout's orientation) and QEMU's screendump of
# what the virtual GPU scans out (the panel's); checks/drm.sh reads both on the host. The card
# is opened through libseat and seatd, as a session without root would. Left idle, the quiet
# screen wakes the session far less than once a frame.
start_seatd
start_uinput_devices
printf '[[touchscreen]]\nmatch = "TouchRouter test touchscreen"\noutput = "Virtual-1"\n' > /run/touch.toml
touch-router run --backend drm --output Virtual-1:800x600,transform=90 --config /run/touch.toml \
    --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session=$!
session_sockets /run/session.log
outputs=$(touch-router msg tree)
echo "outputs: $outputs"
echo "$outputs" | grep -q '"name":"Virtual-1","rect":\[0,0,600,800\]' || { cat /run/session.log; verdict 20; }
weston-simple-touch > /run/client.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 21; }
echo "tap 3072 2048 0" >&3
red() { touch-router msg pixel 300 200 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 300 200; cat /run/session.log /run/client.log; verdict 22; }
echo "pixel at (300, 200): $(touch-router msg pixel 300 200)"
# Two frame periods at least, for the cross to be flipped onto the screen.
sleep 0.5
touch-router msg screenshot /tmp/drm-rotated.png || { cat /run/session.log; verdict 23; }
send_file /tmp/drm-rotated.png drm-rotated.png
ask_host screendump drm-rotated
grep 'touch-router:' /run/session.log || true

# A screen with nothing new goes quiet (docs/session.md, "A quiet screen"): it looks four times
# a second instead of composing at each 60-Hz frame. The session's wakeups over 4 s, the
# client idle, stay far below one a frame: 20 here, and 246 with quiet screens turned off.
wakeups() { grep '^voluntary_ctxt_switches' "/proc/$session/status" | sed 's/[^0-9]//g'; }
sleep 1
before=$(wakeups)
sleep 4
after=$(wakeups)
[ -n "$before" ] && [ -n "$after" ] || { echo "the session is gone"; cat /run/session.log; verdict 26; }
quiet=$((after - before))
echo "quiet screen: the session woke $quiet times in 4 s"
[ "$quiet" -lt 80 ] || { cat /run/session.log; verdict 26; }

# A mode the screen does not offer falls back to its preferred one, with a warning; the
# session still runs (here until its command, sleep 0, exits).
kill "$session"; wait "$session" 2>/dev/null || true
touch-router run --backend drm --output Virtual-1:1234x567 -- sleep 0 > /run/fallback.log 2>&1 || { cat /run/fallback.log; verdict 24; }
grep 'Virtual-1 has no mode 1234x567; using its preferred' /run/fallback.log || { cat /run/fallback.log; verdict 25; }
verdict 0
