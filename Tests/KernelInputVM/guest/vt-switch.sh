# The drm backend (QEMU's bochs display) with every input device of the seat through libinput's
# udev backend, all opened through seatd: what a kiosk on a text console runs. A finger is down
# on weston-simple-touch when the console switches to VT 2: seatd takes the seat away, the
# session stops drawing and libinput lets the devices go, so the touch is cancelled for its
# client. Back on VT 1 the screen is set and drawn again, the devices return, and a tap at a
# new place draws a cross that QEMU's screendump finds on the screen (checks/vt-switch.sh).
# Then a mouse plugged in: its motion draws the cursor on the screen.
/lib/systemd/systemd-udevd --daemon 2>/run/udevd.log
udevadm trigger --action=add
udevadm settle --timeout=30 || echo "udevadm settle timed out"
start_seatd
mkfifo /run/input
uinput-devices --udevd < /run/input > /run/devices.log 2>&1 &
exec 3>/run/input
two_nodes() { [ "$(grep -c '^/dev/input/' /run/devices.log)" = 2 ]; }
until_true two_nodes || { cat /run/devices.log; verdict 40; }
udevadm settle --timeout=30 || true

touch-router run --backend drm > /run/session.log 2>&1 &
session_sockets /run/session.log
touch-router msg trace > /run/trace.log 2>&1 &
weston-simple-touch > /run/client.log 2>&1 &
until_true mapped || { touch-router msg tree; cat /run/session.log /run/client.log; verdict 41; }
touchscreen_listed() { touch-router msg devices | grep -q '"name":"TouchRouter test touchscreen".*"output":"Virtual-1"'; }
until_true touchscreen_listed || { touch-router msg devices; cat /run/session.log; verdict 42; }
echo "outputs: $(touch-router msg tree | grep -o '"name":"[^"]*","rect":\[[0-9,]*\]')"

echo "down 1024 1024 0" >&3
down_seen() { grep -q 'touch down' /run/trace.log; }
until_true down_seen || { cat /run/trace.log; verdict 43; }
chvt 2
paused() { grep -q 'the seat went away' /run/session.log; }
until_true paused || { cat /run/session.log /run/seatd.log; verdict 44; }
cancelled() { sed -n '/touch down/,$p' /run/trace.log | grep -q cancel; }
until_true cancelled || { cat /run/trace.log; verdict 45; }
echo "while away: $(grep 'touch-router:' /run/session.log | tail -n 1)"
echo "up 0" >&3

chvt 1
resumed() { grep -q 'the seat is back' /run/session.log; }
until_true resumed || { cat /run/session.log /run/seatd.log; verdict 46; }
# The devices come back with the seat; a tap at (1536, 1024) of 4096 lands at (480, 200) of
# the 1280x800 screen, inside weston-simple-touch and away from the first cross at (320, 200).
back() { touch-router msg devices | grep -q '"name":"TouchRouter test touchscreen"'; }
until_true back || { touch-router msg devices; verdict 47; }
sleep 0.5
echo "tap 1536 1024 0" >&3
red() { touch-router msg pixel 480 200 | grep -q '"argb":"0xffff0000"'; }
until_true red || { touch-router msg pixel 480 200; cat /run/session.log /run/trace.log | tail -n 30; verdict 48; }
sleep 0.5
ask_host screendump vt-switch-back

# A mouse plugged in now: moving it draws the compositor's cursor, its tip at the pointer,
# on the screen (the touches above hid it, and it was never shown before).
echo "add-mouse" >&3
mouse_listed() { touch-router msg devices | grep -q '"name":"TouchRouter test mouse"'; }
until_true mouse_listed || { touch-router msg devices; cat /run/devices.log; verdict 49; }
pointer_at() { touch-router msg focus | sed -n 's/.*"pointer":\[\([0-9.]*\),\([0-9.]*\)\].*/\1 \2/p'; }
start=$(pointer_at)
echo "move 40 30" >&3
moved() { [ "$(pointer_at)" != "$start" ]; }
until_true moved || { touch-router msg focus; verdict 50; }
sleep 0.5
pointer=$(pointer_at)
echo "POINTER $pointer"
ask_host screendump vt-switch-cursor
grep 'touch-router:' /run/session.log || true
verdict 0
