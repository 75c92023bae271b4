# The drm backend on QEMU's bochs display with [idle] blank-after = 2 in the --config file. wev
# is drawn on the screen; after 2 s without input the session turns the CRTC off, which the
# kernel's state shows (the connector's sysfs enabled and dpms, the CRTC in debugfs) and QEMU's
# screendump too: bochs blanks the VGA when its pipe is disabled, and QEMU then scans out
# black. weston-simple-touch mapped while dark (600x500 at (32, 32), over wev's 640x480 at
# (0, 0)) leaves it dark. A touch on wev's strip above it wakes the screen: the CRTC is on
# again and the screen drawn anew, weston-simple-touch on it; that whole touch, down, motion
# and up, reaches no client (the trace says "it woke the output"; wev logs no wl_touch). The
# next tap there reaches wev. checks/drm-idle.sh reads the three captures.
start_seatd
start_uinput_devices
mount -t debugfs debugfs /sys/kernel/debug || verdict 60
now() { cut -d' ' -f1 /proc/uptime; }
# What the kernel says of the screen: the connector's sysfs enabled and dpms, and from the
# atomic state in debugfs the CRTC's enable and active and the framebuffer its plane scans out.
screen_state() {
    printf 'enabled=%s dpms=%s ' "$(cat /sys/class/drm/card0-Virtual-1/enabled)" "$(cat /sys/class/drm/card0-Virtual-1/dpms)"
    grep -A2 '^crtc\[' /sys/kernel/debug/dri/0/state | tr -d '\t' | tr '\n' ' '
    grep -A2 '^plane\[' /sys/kernel/debug/dri/0/state | grep 'fb=' | tr -d '\t'
}
lit_state='^enabled=enabled dpms=On crtc\[[0-9]*\]: crtc-0 enable=1 active=1 fb=[1-9]'
dark_state='^enabled=disabled dpms=Off crtc\[[0-9]*\]: crtc-0 enable=0 active=0 fb=0$'
power() { touch-router msg tree | grep -q "\"name\":\"Virtual-1\",\"rect\":\[[0-9,]*\],\"power\":\"$1\""; }

printf '[idle]\nblank-after = 2\n' > /run/idle.toml
touch-router run --backend drm --config /run/idle.toml --input-device "$touchscreen" --input-device "$keyboard" > /run/session.log 2>&1 &
session_sockets /run/session.log
# Until the lit screen is captured a key (Left Shift) every half second keeps the count from
# reaching 2 s, however slow the VM is at starting wev.
(while [ ! -e /run/keys-done ]; do echo "key 42" >&3; sleep 0.5; done) &
keys=$!
touch-router msg trace > /run/trace.log 2>&1 &
LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L wev > /run/wev.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/wev.log; verdict 61; }
sleep 0.5
touch-router msg idle | grep -q '"state":"active".*"blank_after_ms":2000,"blanking":"power-off","dark_outputs":\[\]' || { touch-router msg idle; verdict 62; }
power on || { touch-router msg tree; verdict 63; }
echo "lit: $(screen_state)"
screen_state | grep -q "$lit_state" || verdict 64
ask_host screendump idle-lit

# The last key, then nothing: the screen goes dark 2 s after it.
touch /run/keys-done; wait "$keys"
typed=$(grep -c '^typed 42' /run/devices.log)
echo "key 42" >&3
last_typed() { [ "$(grep -c '^typed 42' /run/devices.log)" -gt "$typed" ]; }
until_true last_typed || { cat /run/devices.log; verdict 65; }
quiet_from=$(now)
blanked() { touch-router msg idle | grep -q '"state":"blanked"'; }
until_true blanked || { touch-router msg idle; cat /run/session.log; verdict 66; }
dark_at=$(now)
idle=$(touch-router msg idle)
echo "idle: $idle"
echo "dark $(echo "$quiet_from $dark_at" | awk '{ printf "%.2f", $2 - $1 }') s after the last key"
echo "$quiet_from $dark_at" | awk '{ exit !($2 - $1 >= 1.5 && $2 - $1 <= 8) }' || verdict 67
echo "$idle" | grep -q '"dark_outputs":\["Virtual-1"\]' || verdict 68
power off || { touch-router msg tree; verdict 69; }
dark() { screen_state | grep -q "$dark_state"; }
until_true dark || { screen_state; cat /run/session.log; verdict 70; }
echo "dark: $(screen_state)"

# A window mapped while dark is not shown until the screen wakes.
weston-simple-touch > /run/client.log 2>&1 &
two_windows() { [ "$(touch-router msg tree | grep -o '"mapped":true' | grep -c .)" = 2 ]; }
until_true two_windows || { touch-router msg tree; cat /run/client.log; verdict 71; }
sleep 0.5
screen_state | grep -q "$dark_state" || { screen_state; verdict 72; }
power off || { touch-router msg tree; verdict 73; }
ask_host screendump idle-dark

# The waking touch on wev at (320, 16) (device (1024, 82) of 4096): lit again while the
# finger is still down; its motion and up go nowhere.
echo "down 1024 82 0" >&3
lit() { screen_state | grep -q "$lit_state"; }
until_true lit || { screen_state; cat /run/session.log; verdict 74; }
power on || { touch-router msg tree; verdict 75; }
touch-router msg idle | grep -q '"state":"active".*"dark_outputs":\[\]' || { touch-router msg idle; verdict 76; }
echo "woken: $(screen_state)"
echo "motion 1056 102 0" >&3
echo "up 0" >&3
woke_all() { [ "$(grep -c 'it woke the output' /run/trace.log)" = 3 ]; }
until_true woke_all || { cat /run/trace.log; verdict 77; }
grep 'it woke the output' /run/trace.log | sed 's/,"stages_ns".*//'
grep -q 'wl_touch' /run/wev.log && { echo "the waking touch reached wev:"; grep -A1 'wl_touch' /run/wev.log; verdict 78; }
# Two frame periods at least, for the whole screen to be drawn and flipped.
sleep 0.5
ask_host screendump idle-woke

# The next tap there reaches wev: one wl_touch down, this one's.
echo "tap 1024 82 0" >&3
touch_up() { grep -q 'wl_touch\] up' /run/wev.log; }
until_true touch_up || { cat /run/wev.log /run/trace.log; verdict 79; }
echo "wev: $(grep -A1 'wl_touch\] down' /run/wev.log | tr -s ' \n' ' ')"
[ "$(grep -c 'wl_touch\] down' /run/wev.log)" = 1 ] && ! grep -q 'wl_touch\] motion' /run/wev.log || { cat /run/wev.log; verdict 80; }
# Turning the CRTC off or on failed: the session reports it ("cannot turn it off", "... on").
grep 'touch-router:' /run/session.log || true
grep -qiE 'touch-router:.*(cannot|error|fail)' /run/session.log && verdict 81
verdict 0
