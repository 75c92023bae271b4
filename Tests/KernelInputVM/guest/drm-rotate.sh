# A kiosk on the drm backend (QEMU's bochs display, connector Virtual-1, 1280x800) turned to
# portrait while it runs, then given other modes: what a kiosk's `msg output set` and
# `[[output]]` tables do to a real screen. wev is the kiosk app (it fills the output, takes
# every size it is configured to, and logs each touch down where its surface was touched);
# weston-simple-touch, mapped after it, lies at (0, 0) of the layout over it and draws a
# cross where it is touched, which QEMU's screendump of what the GPU scans out finds on the
# panel (checks/drm-rotate.sh). Positions are the touchscreen's (0 to 4095 of 4096 on both
# axes): a finger at device (u, v), normalized, is at (u, v) of the panel whatever the turn,
# and with transform 90 at (v, 1 - u) of the output's layout rectangle (270: (1 - v, u)).
#   (1) transform 90: `msg output set` says so; the layout rectangle is 800x1280, wev is
#       configured to it and commits it, a finger down on it is cancelled, the touchscreen's
#       mapping is turned; the CRTC stays lit with its mode; taps land where the turn puts
#       them, and the cross is under the finger on the panel.
#   (2) mode 800x600 (a modeset, the transform kept): the kernel's CRTC, QEMU's screendump,
#       `msg tree` and wev all follow, and taps land under the finger again.
#   (3) mode 1234x567, which bochs does not list: refused, saying why and what it has; the
#       screen keeps 800x600.
#   (4) an [[output]] table with transform = 270 and no mode, then `msg reload`: the screen's
#       own mode (1280x800) again, turned the other way; a table asking 1234x567 on a
#       reload is reported in its reply's output_errors and changes nothing.
start_seatd
start_uinput_devices
mount -t debugfs debugfs /sys/kernel/debug || verdict 82
# What the kernel says of the screen: the connector's sysfs enabled and dpms, and from the
# atomic state in debugfs the CRTC's enable, active and mode, the framebuffer its plane scans
# out and the plane's place on the CRTC. Not the framebuffer's id: it alternates between the
# two buffers frame by frame.
screen_state() {
    state=/sys/kernel/debug/dri/0/state
    printf 'enabled=%s dpms=%s ' "$(cat /sys/class/drm/card0-Virtual-1/enabled)" "$(cat /sys/class/drm/card0-Virtual-1/dpms)"
    grep -A2 '^crtc\[' $state | tr -d '\t' | tr '\n' ' '
    grep -o 'mode: "[0-9]*x[0-9]*"' $state | head -n1 | tr '\n' ' '
    grep -A2 '^plane\[' $state | grep 'fb=' | tr -d '\t' | tr '\n' ' '
    grep -o 'crtc-pos=[0-9x+]*' $state | head -n1
}
# Lit, scanning out a WxH mode ($1) whole from a framebuffer.
lit_with() { screen_state | grep -q "^enabled=enabled dpms=On crtc\[[0-9]*\]: crtc-0 enable=1 active=1 mode: \"$1\" fb=[1-9][0-9]* crtc-pos=$1+0+0$"; }
# Virtual-1 in `msg tree`, from its name to its transform.
output_state() { touch-router msg tree | grep -o '"name":"Virtual-1","rect":\[[0-9,]*\],"power":"[a-z]*","mode":"[^"]*","transform":"[^"]*"'; }
# wev's toplevel in `msg tree`: its place and the size it committed.
wev_state() { touch-router msg tree | grep -o '"label":"wev: wev","position":\[[0-9,]*\],"size":\[[0-9,]*\]'; }
# The touchscreen's entry in `msg devices`, from "output" on.
touch_mapping() { touch-router msg devices | grep -o '"name":"TouchRouter test touchscreen"[^}]*' | sed 's/.*\("output"\)/\1/'; }
# Waits until `msg tree` has Virtual-1 as $1 (a pattern from "rect" on) and wev as $2 (its
# size, "W,H"), else ends with verdict $3.
expect_layout() {
    wanted_output=$1 wanted_size=$2
    laid_out() { output_state | grep -q "^\"name\":\"Virtual-1\",\"rect\":$wanted_output\$" && [ "$(wev_state)" = "\"label\":\"wev: wev\",\"position\":[0,0],\"size\":[$wanted_size]" ]; }
    until_true laid_out || { echo "output: $(output_state)"; echo "wev: $(wev_state)"; cat /run/session.log; verdict "$3"; }
    echo "output: $(output_state); wev: $(wev_state)"
}
# Waits until the kernel scans out a WxH mode ($1) whole, else ends with verdict $2.
expect_lit() {
    wanted_mode=$1
    lit_now() { lit_with "$wanted_mode"; }
    until_true lit_now || { echo "screen: $(screen_state)"; cat /run/session.log; verdict "$2"; }
    echo "screen: $(screen_state)"
}
# Taps device (X, Y) and waits for wev's touch down, then checks it is within a pixel of
# surface-local (WX, WY); verdict $5 without one, $6 elsewhere.
tap_wev() {
    before=$(grep -c 'wl_touch\] down' /run/wev.log)
    echo "tap $1 $2 0" >&3
    one_more() { [ "$(grep -c 'wl_touch\] down' /run/wev.log)" -gt "$before" ]; }
    until_true one_more || { cat /run/wev.log /run/devices.log /run/session.log; verdict "$5"; }
    at=$(grep 'wl_touch\] down' /run/wev.log | tail -n1 | sed -n 's/.*x, y: \([-0-9.]*\), \([-0-9.]*\).*/\1 \2/p')
    echo "device ($1, $2) reached wev at ($at), expected ($3, $4)"
    echo "$at $3 $4" | awk '{ d = $1 - $3; e = $2 - $4; exit !(NF == 4 && d * d <= 1 && e * e <= 1) }' || { grep 'wl_touch' /run/wev.log; verdict "$6"; }
}
# Taps device (X, Y) and waits for weston-simple-touch's cross at layout (LX, LY), else ends
# with verdict $5. Red is its colour for touch id 0, the slot every tap here uses.
tap_cross() {
    echo "tap $1 $2 0" >&3
    cross_x=$3 cross_y=$4
    red() { touch-router msg pixel "$cross_x" "$cross_y" | grep -q '"argb":"0xffff0000"'; }
    until_true red || { touch-router msg pixel "$3" "$4"; cat /run/session.log /run/client.log; verdict "$5"; }
    echo "device ($1, $2): cross at ($3, $4) of the layout: $(touch-router msg pixel "$3" "$4")"
}

: > /run/rotate.toml
touch-router run --backend drm --kiosk --config /run/rotate.toml --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session_sockets /run/session.log
modes=$(tr '\n' ' ' < /sys/class/drm/card0-Virtual-1/modes)
echo "Virtual-1's modes: $modes"
# The points below are worked out for bochs's preferred 1280x800 and its 800x600.
initial=$(output_state | sed -n 's/.*"mode":"\([^"]*\)".*/\1/p')
echo "initial: $(output_state)"
case "$initial" in 1280x800@*) ;; *) verdict 83 ;; esac
case " $modes " in *" 800x600 "*) ;; *) verdict 84 ;; esac
expect_lit 1280x800 85
# wev first: the first toplevel is the kiosk's, filling the output.
LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L wev > /run/wev.log 2>&1 &
expect_layout '\[0,0,1280,800\],"power":"on","mode":"'"$initial"'","transform":"normal"' 1280,800 86
weston-simple-touch > /run/client.log 2>&1 &
two_windows() { [ "$(touch-router msg tree | grep -o '"mapped":true' | grep -c .)" = 2 ]; }
until_true two_windows || { touch-router msg tree; cat /run/client.log; verdict 87; }
echo "touchscreen mapping: $(touch_mapping)"
# Unturned, device (3072, 3072) is (960, 600) of the screen and of wev, beside weston-simple-touch.
tap_wev 3072 3072 960 600 88 89
sleep 0.5
ask_host screendump drm-rotate-normal

# (1) Turned to portrait with a finger down on wev: the finger's touch is cancelled.
echo "down 3072 3072 0" >&3
downs() { [ "$(grep -c 'wl_touch\] down' /run/wev.log)" = 2 ]; }
until_true downs || { cat /run/wev.log; verdict 90; }
reply=$(touch-router msg output set Virtual-1 transform 90)
echo "transform 90: $reply"
echo "$reply" | grep -q '^{"ok":true,"output":"Virtual-1","mode":"'"$initial"'","transform":"90","scale":1,"frame_margin_us":[0-9]*}$' || { cat /run/session.log; verdict 91; }
expect_layout '\[0,0,800,1280\],"power":"on","mode":"'"$initial"'","transform":"90"' 800,1280 92
# wev was told the portrait size (and drew at it: the size above is its committed buffer's).
grep -q 'xdg_toplevel\] configure: width: 800; height: 1280' /run/wev.log || { grep configure /run/wev.log; verdict 93; }
# A cancel after the last down.
cancelled() { awk '/wl_touch\] down/ { c = 0 } /wl_touch\] cancel/ { c = 1 } END { exit !c }' /run/wev.log; }
until_true cancelled || { grep wl_touch /run/wev.log; verdict 94; }
echo "up 0" >&3
# A turn alone is no modeset: the CRTC keeps its mode, lit.
expect_lit 1280x800 95
mapping='"output":"Virtual-1","region":\[0,0,800,1280\],"transform":"90"'
turned() { touch_mapping | grep -q "^$mapping"; }
until_true turned || { echo "touchscreen mapping: $(touch_mapping)"; verdict 96; }
echo "touchscreen mapping: $(touch_mapping)"
# Device (1216, 2048) is (0.296875, 0.5): (400, 900) of the 800x1280 layout, on wev. Once
# its up has reached wev, it is the only up since the cancel: the cancelled finger's went nowhere.
tap_wev 1216 2048 400 900 97 98
last_up() { grep 'wl_touch\] [a-z]*:' /run/wev.log | tail -n1 | grep -q 'wl_touch\] up:'; }
until_true last_up || { grep wl_touch /run/wev.log; verdict 99; }
[ "$(sed -n '/wl_touch\] cancel/,$p' /run/wev.log | grep -c 'wl_touch\] up:')" = 1 ] || { grep wl_touch /run/wev.log; verdict 126; }
# Device (3456, 1536) is (0.84375, 0.375): (300, 200) of the layout, on weston-simple-touch,
# and (1080, 300) of the panel, where checks/drm-rotate.sh finds the cross.
tap_cross 3456 1536 300 200 100
sleep 0.5
ask_host screendump drm-rotate-90

# (2) A new mode, the turn kept: a modeset, checked against the connector's list.
reply=$(touch-router msg output set Virtual-1 mode 800x600)
echo "mode 800x600: $reply"
echo "$reply" | grep -q '^{"ok":true,"output":"Virtual-1","mode":"800x600@[0-9.]*","transform":"90","scale":1,"frame_margin_us":[0-9]*}$' || { cat /run/session.log; verdict 101; }
small=$(echo "$reply" | sed -n 's/.*"mode":"\([^"]*\)".*/\1/p')
expect_layout '\[0,0,600,800\],"power":"on","mode":"'"$small"'","transform":"90"' 600,800 102
expect_lit 800x600 103
grep -q 'xdg_toplevel\] configure: width: 600; height: 800' /run/wev.log || { grep configure /run/wev.log; verdict 104; }
mapping='"output":"Virtual-1","region":\[0,0,600,800\],"transform":"90"'
until_true turned || { echo "touchscreen mapping: $(touch_mapping)"; verdict 105; }
# Device (1024, 3072) is (0.25, 0.75): (450, 600) of the 600x800 layout, on wev. Device
# (2048, 1024) is (0.5, 0.25): (150, 400) of the layout, on weston-simple-touch, and (400, 150)
# of the 800x600 panel.
tap_wev 1024 3072 450 600 106 107
tap_cross 2048 1024 150 400 108
sleep 0.5
ask_host screendump drm-rotate-800x600

# (3) A mode the screen does not list: refused before anything is touched, saying why.
reply=$(touch-router msg output set Virtual-1 mode 1234x567)
echo "mode 1234x567: $reply"
echo "$reply" | grep -q '^{"ok":false,"error":"output set: Virtual-1: no mode 1234x567: its modes are [^"]*1280x800[^"]*; it keeps '"$small"', transform 90, scale 1"}$' || verdict 109
echo "$reply" | grep -q 'its modes are [^"]*800x600' || verdict 110
output_state | grep -q '^"name":"Virtual-1","rect":\[0,0,600,800\],"power":"on","mode":"'"$small"'","transform":"90"$' || { output_state; verdict 111; }
lit_with 800x600 || { screen_state; verdict 112; }
# Still routed as before: device (1024, 2048) is (0.25, 0.5): (300, 600) of the layout, on wev.
tap_wev 1024 2048 300 600 113 114
echo "after the refusal: $(output_state); screen: $(screen_state)"
sleep 0.5
ask_host screendump drm-rotate-refused

# (4) An [[output]] table turning it the other way, no mode: the screen's own mode again.
printf '[[output]]\nname = "Virtual-1"\ntransform = 270\n' > /run/rotate.toml
reply=$(touch-router msg reload)
echo "reload (transform = 270): $reply"
[ "$reply" = '{"ok":true,"file":"/run/rotate.toml"}' ] || { cat /run/session.log; verdict 115; }
expect_layout '\[0,0,800,1280\],"power":"on","mode":"'"$initial"'","transform":"270"' 800,1280 116
expect_lit 1280x800 117
mapping='"output":"Virtual-1","region":\[0,0,800,1280\],"transform":"270"'
until_true turned || { echo "touchscreen mapping: $(touch_mapping)"; verdict 118; }
# Device (2880, 2048) is (0.703125, 0.5): (400, 900) of the layout again, on wev. Device
# (320, 1792) is (0.078125, 0.4375): (450, 100), on weston-simple-touch, and (100, 350) of the panel.
tap_wev 2880 2048 400 900 119 120
tap_cross 320 1792 450 100 121
sleep 0.5
ask_host screendump drm-rotate-270
# A table asking for a mode the screen lacks: the reload is taken and says so; the screen stays.
printf '[[output]]\nname = "Virtual-1"\nmode = "1234x567"\ntransform = 270\n' > /run/rotate.toml
reply=$(touch-router msg reload)
echo "reload (mode = \"1234x567\"): $reply"
echo "$reply" | grep -q '^{"ok":true,"file":"/run/rotate.toml","output_errors":\["\[\[output\]\] \\"Virtual-1\\" at line 1: Virtual-1: no mode 1234x567: its modes are [^"]*800x600[^"]*; it keeps '"$initial"', transform 270, scale 1"\]}$' || { cat /run/session.log; verdict 122; }
output_state | grep -q '^"name":"Virtual-1","rect":\[0,0,800,1280\],"power":"on","mode":"'"$initial"'","transform":"270"$' || { output_state; verdict 123; }
lit_with 1280x800 || { screen_state; verdict 124; }
grep 'touch-router:' /run/session.log || true
# A modeset the kernel refused, or a frame it could not show, is reported ("cannot", "failed").
grep -qiE 'touch-router:.*(cannot|error|fail|refused)' /run/session.log && verdict 125
verdict 0
