# Sourced by /init before a scenario: what every scenario uses.

# Waits up to 20 s for a command to succeed.
until_true() { i=0; while ! "$@" >/dev/null 2>&1; do i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.1; done; }

# Ends the VM: QEMU's isa-debug-exit leaves with status 2v+1, so 0 is a pass.
verdict() { echo "VERDICT $1"; printf "\\$(printf '%03o' "$1")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null; poweroff -f; }

# Starts uinput-devices, a touchscreen and a keyboard, reading commands from fd 3, and sets
# $touchscreen and $keyboard to their nodes.
start_uinput_devices() {
    mkfifo /run/input
    uinput-devices < /run/input > /run/devices.log 2>&1 &
    exec 3>/run/input
    two_nodes() { [ "$(grep -c '^/dev/input/' /run/devices.log)" = 2 ]; }
    until_true two_nodes || { cat /run/devices.log; verdict 2; }
    touchscreen=$(grep '^/dev/input/' /run/devices.log | head -n1)
    keyboard=$(grep '^/dev/input/' /run/devices.log | sed -n 2p)
    echo "touchscreen at $touchscreen, keyboard at $keyboard"
}

# Waits for a session started with its output in $1 and exports its sockets.
session_sockets() {
    until_true grep -q TOUCH_ROUTER_SOCKET "$1" || { cat "$1"; verdict 3; }
    export $(grep WAYLAND_DISPLAY "$1") $(grep TOUCH_ROUTER_SOCKET "$1")
}

# Asks the host to do something (run.sh's host side reads the serial console) and waits
# for its answer on the second serial port.
ask_host() {
    echo "HOST $*"
    read -r answer < /dev/ttyS1
    echo "host: $answer"
}

# Prints a file on the console between markers, base64, for the host to take out.
send_file() {
    echo "BEGIN-FILE $2"
    base64 "$1"
    echo "END-FILE $2"
}

mapped() { touch-router msg tree | grep -q '"mapped":true'; }

# Starts seatd, the seat manager the session opens its devices through (libseat).
start_seatd() {
    mkdir -p /etc && echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd && echo 'root:x:0:' > /etc/group
    seatd -g root > /run/seatd.log 2>&1 &
    until_true ls /run/seatd.sock || { cat /run/seatd.log; verdict 19; }
    export LIBSEAT_BACKEND=seatd
}
