# qemu: -vga none -device virtio-gpu-pci,max_outputs=2,id=gpu
# The drm backend on a virtio-gpu with two heads (card0, Virtual-1 and Virtual-2). Screens are
# plugged in and out through the connectors' sysfs status, which the kernel's connector state
# follows. virtio-gpu polls no connectors, so the kernel sends no event for it: a synthetic
# change event of the card (its uevent file) stands in for the one a cable would bring. Virtual-2 plugged in becomes an output right of Virtual-1;
# Virtual-1 unplugged hands weston-simple-touch to Virtual-2, where a touch still reaches it
# and QEMU's screendump of the second head shows its cross (checks/drm-hotplug.sh).
# Meanwhile a uinput touchscreen, which a [[touchscreen]] table maps to Virtual-2, has its
# mapping chosen again whenever a screen comes or goes and when a reload changes the table:
# on Virtual-1 while Virtual-2 is unplugged (the only output), on Virtual-2 once it is plugged
# in, unplugged and plugged back; on Virtual-1 after the file is rewritten and `msg reload`,
# on Virtual-2 again after a rewrite and SIGHUP. `msg devices` says so each time, and the same
# tap lands on the output it names: the trace's position in Virtual-2's rectangle, or a cross
# on weston-simple-touch (on Virtual-1) where the tap lands there and nowhere red before.
start_seatd
start_uinput_devices
echo "connectors: $(for c in /sys/class/drm/card0-*; do printf '%s=%s ' "${c##*/}" "$(cat "$c/status")"; done)"
# Virtual-2 starts unplugged, whatever QEMU's head reports.
echo off > /sys/class/drm/card0-Virtual-2/status
touch_table() { printf '[[touchscreen]]\nmatch = "TouchRouter test touchscreen"\noutput = "%s"\n' "$1" > /run/touch.toml; }
touch_table Virtual-2
touch-router run --backend drm --config /run/touch.toml --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session_sockets /run/session.log
touch-router msg trace > /run/trace.log 2>&1 &
outputs() { touch-router msg tree | grep -o '"name":"[^"]*","rect":\[[0-9,]*\]' | tr '\n' ' '; }
echo "outputs at start: $(outputs)"
[ "$(outputs)" = '"name":"Virtual-1","rect":[0,0,1280,800] ' ] || { cat /run/session.log; verdict 30; }

# The touchscreen's entry in `msg devices`, from "output" on.
touch_mapping() { touch-router msg devices | grep -o '"name":"TouchRouter test touchscreen"[^}]*' | sed 's/.*\("output"\)/\1/'; }
# Waits until the touchscreen is mapped as $1 (a pattern from "output" on), else ends with verdict $2.
expect_mapping() {
    wanted=$1
    mapping_is() { touch_mapping | grep -q "^$wanted"; }
    until_true mapping_is || { echo "touchscreen mapping: $(touch_mapping)"; touch-router msg devices; cat /run/session.log; verdict "$2"; }
    echo "touchscreen mapping: $(touch_mapping)"
}
v1_missing='; the configured output Virtual-1 (line 1) does not exist'
v2_missing='; the configured output Virtual-2 (line 1) does not exist'
expect_mapping '"output":"Virtual-1","region":\[0,0,1280,800\],"transform":"normal","reason":"the only output'"$v2_missing"'"' 40

# Taps the touchscreen at device (X, Y) of 4096 and waits for the trace's touch down, then
# sets $down to its layout position ("X Y"); verdict $3 without one.
tap_traced() {
    before=$(grep -c '"event":"touch down' /run/trace.log)
    echo "tap $1 $2 0" >&3
    traced() { [ "$(grep -c '"event":"touch down' /run/trace.log)" -gt "$before" ]; }
    until_true traced || { cat /run/trace.log /run/devices.log; verdict "$3"; }
    line=$(grep '"event":"touch down' /run/trace.log | tail -n1)
    down=$(echo "$line" | sed -n 's/.*"event":"touch down [0-9]* \([-0-9.]*\) \([-0-9.]*\)".*/\1 \2/p')
    echo "device ($1, $2) went down at ($down): $(echo "$line" | sed 's/"stages_ns":{[^}]*},//')"
}
# Whether $down is within a pixel of (X, Y).
down_at() { echo "$down $1 $2" | awk '{ d = $1 - $3; e = $2 - $4; exit !(d * d <= 1 && e * e <= 1) }'; }
red_at() { touch-router msg pixel "$1" "$2" | grep -q '"argb":"0xffff0000"'; }

plug() { echo "$2" > /sys/class/drm/card0-$1/status; echo change > /sys/class/drm/card0/uevent; }
plug Virtual-2 on
two() { outputs | grep -q '"name":"Virtual-2","rect":\[1280,0,'; }
until_true two || { outputs; cat /run/session.log; verdict 31; }
echo "after plugging Virtual-2 in: $(outputs)"
# Virtual-2's rectangle, as the layout has it: "X,Y,W,H".
v2_rect=$(outputs | sed -n 's/.*"name":"Virtual-2","rect":\[\([0-9,]*\)\].*/\1/p')
v2_width=$(echo "$v2_rect" | cut -d, -f3) v2_height=$(echo "$v2_rect" | cut -d, -f4)
# (1) Plugged in, the table's output exists: the touchscreen is mapped to it.
expect_mapping '"output":"Virtual-2","region":\['"$v2_rect"'\],"transform":"normal","reason":"configuration, line 1"' 41

weston-simple-touch > /run/client.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 32; }
# Device (1024, 1024) is a quarter of the way across and down: on Virtual-2, not on the window
# at (0, 0) of Virtual-1, whose (320, 200) it would have been.
tap_traced 1024 1024 42
down_at $((1280 + v2_width / 4)) $((v2_height / 4)) || verdict 43
sleep 0.3
red_at 320 200 && { touch-router msg pixel 320 200; verdict 44; }

# (2) Virtual-2 unplugged: back on Virtual-1, and the same tap reaches weston-simple-touch.
plug Virtual-2 off
one() { [ "$(outputs)" = '"name":"Virtual-1","rect":[0,0,1280,800] ' ]; }
until_true one || { outputs; cat /run/session.log; verdict 45; }
expect_mapping '"output":"Virtual-1","region":\[0,0,1280,800\],"transform":"normal","reason":"the only output'"$v2_missing"'"' 46
tap_traced 1024 1024 47
down_at 320 200 || verdict 48
until_true red_at 320 200 || { touch-router msg pixel 320 200; cat /run/session.log /run/client.log; verdict 49; }
echo "pixel at (320, 200): $(touch-router msg pixel 320 200)"
# Plugged back: on Virtual-2 again. Device (1536, 1024) is on it, not at Virtual-1's (480, 200).
plug Virtual-2 on
until_true two || { outputs; cat /run/session.log; verdict 50; }
echo "after plugging Virtual-2 in again: $(outputs)"
expect_mapping '"output":"Virtual-2","region":\['"$v2_rect"'\],"transform":"normal","reason":"configuration, line 1"' 51
tap_traced 1536 1024 52
down_at $((1280 + v2_width * 3 / 8)) $((v2_height / 4)) || verdict 53
sleep 0.3
red_at 480 200 && { touch-router msg pixel 480 200; verdict 54; }

# (3) The table rewritten for Virtual-1, and `msg reload`: the same tap now lands at (480, 200).
touch_table Virtual-1
reload=$(touch-router msg reload)
echo "reload: $reload"
echo "$reload" | grep -q '"ok":true' || { cat /run/session.log; verdict 55; }
expect_mapping '"output":"Virtual-1","region":\[0,0,1280,800\],"transform":"normal","reason":"configuration, line 1"' 56
tap_traced 1536 1024 57
down_at 480 200 || verdict 58
until_true red_at 480 200 || { touch-router msg pixel 480 200; cat /run/session.log /run/client.log; verdict 59; }
echo "pixel at (480, 200): $(touch-router msg pixel 480 200)"
# Rewritten for Virtual-2 again, and SIGHUP (to the session, whose pid its socket's name holds).
touch_table Virtual-2
session_pid=$(echo "$TOUCH_ROUTER_SOCKET" | sed -n 's/.*touch-router\.\([0-9]*\)\..*/\1/p')
kill -HUP "$session_pid" || verdict 60
expect_mapping '"output":"Virtual-2","region":\['"$v2_rect"'\],"transform":"normal","reason":"configuration, line 1"' 61
tap_traced 2048 2048 62
down_at $((1280 + v2_width / 2)) $((v2_height / 2)) || verdict 63

plug Virtual-1 off
# Virtual-2 was plugged in twice: its output is the second one made for it (id 3).
moved() { touch-router msg tree | grep -q '^{"ok":true,"outputs":\[{"id":3,"name":"Virtual-2".*"mapped":true'; }
until_true moved || { touch-router msg tree; cat /run/session.log; verdict 33; }
echo "after unplugging Virtual-1: $(touch-router msg tree)"
# The touchscreen stays on Virtual-2, as its table says; device (128, 768) is (160, 405) of its
# 5120x2160, on the 600x500 window moved there with its crosses.
expect_mapping '"output":"Virtual-2","region":\['"$v2_rect"'\],"transform":"normal","reason":"configuration, line 1"' 64
tap_traced 128 768 65
x=$((1280 + v2_width * 128 / 4096)) y=$((v2_height * 768 / 4096))
down_at $x $y || verdict 66
until_true red_at $x $y || { touch-router msg pixel $x $y; cat /run/session.log /run/client.log; verdict 67; }
echo "pixel at ($x, $y): $(touch-router msg pixel $x $y)"
# The window kept its place inside the output: (0, 0) of Virtual-2 at layout x 1280.
touch-router msg inject touch down 0 1400 100 > /dev/null && touch-router msg inject touch frame > /dev/null
red() { touch-router msg pixel 1400 100 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 1400 100; cat /run/session.log /run/client.log; verdict 34; }
sleep 0.5
ask_host screendump-head 1 drm-hotplug-head2
grep 'touch-router:' /run/session.log || true
verdict 0
