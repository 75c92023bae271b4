# qemu: -vga none -device virtio-gpu-pci,id=gpu -smp 2
# Touch to present on drm (virtio-gpu: cage's wlroots 0.15 needs PRIME import, which bochs
# lacks; two emulated CPUs, so that the writer of the touches is not queued behind the
# compositor it measures), the fairest comparison this machine allows: one kernel
# touchscreen (uinput, read through libinput), one kernel and one client for each compositor
# in turn, TouchRouter and then Debian's cage 0.1.4, each on /dev/dri/card0 through seatd and
# presenting at the page flip. The client is touch-router-bench-client --present: each
# wl_touch.frame is answered with a dot and presentation feedback. uinput-devices writes
# strokes at 50 Hz (what this emulated machine keeps up with) and records when it wrote each report; the host matches the client's
# touch events to them by order and reads the presented times (checks/present.sh).
start_seatd
start_uinput_devices
# cage and sway refuse root, and any group they could set back (gid 0 included): they run as
# uid and gid 1000 through util-linux's setpriv (busybox's applet, which its sh prefers by
# name, cannot change users), and seatd's socket is opened to them.
echo 'kiosk:x:1000:1000::/run/xdg-kiosk:/bin/sh' >> /etc/passwd && echo 'kiosk:x:1000:' >> /etc/group
mkdir -p /run/xdg-kiosk && chown 1000:1000 /run/xdg-kiosk && chmod 700 /run/xdg-kiosk
chmod 666 /run/seatd.sock
# cage 0.1.4 will not start without an Xwayland binary, though it starts Xwayland only for an
# X11 client, which never comes here: a stand-in that fails if it is ever run.
[ -x /usr/bin/Xwayland ] || { printf '#!/bin/sh\necho "Xwayland stand-in: not in the VM" >&2\nexit 1\n' > /usr/bin/Xwayland && chmod 755 /usr/bin/Xwayland; }
strokes() { # NAME: five strokes of 40 motions at 50 Hz, their send times in /run/sent-NAME.txt
    before=$(grep -c '^stroked' /run/devices.log)
    for stroke in 1 2 3 4 5; do
        echo "stroke 400 $((600 + 200 * stroke)) 40 20000 /run/sent-$1.txt" >&3
        stroked() { [ "$(grep -c '^stroked' /run/devices.log)" = $((before + stroke)) ]; }
        until_true stroked || { cat /run/devices.log; verdict 40; }
    done
}
client() { # DIR: the client's command line, writing into DIR
    echo "exec touch-router-bench-client --out $1/client.txt --size 800x600 --present > $1/client.out 2>$1/client.err"
}
measure() { # NAME DIR PID: strokes, then the client writes its records, the compositor ends, the files go to the host
    mapped_in() { grep -q '^mapped' "$2/client.out"; }
    until_true mapped_in "$1" "$2" || { cat "/run/$1.log" "$2/client.err"; verdict 42; }
    # A compositor may still be placing the window (sway waits up to 200 ms for the client's commit).
    sleep 0.5
    strokes "$1"
    sleep 0.5
    kill "$(pidof touch-router-bench-client)" 2>/dev/null || true
    until_true test -s "$2/client.txt" || { cat "$2/client.err"; verdict 41; }
    kill "$3" 2>/dev/null || true; wait "$3" 2>/dev/null || true
    send_file "$2/client.txt" "client-$1.txt"
    send_file "/run/sent-$1.txt" "sent-$1.txt"
    sleep 1
}

touch-router run --backend drm --kiosk --input-device "$touchscreen" --input-device "$keyboard" -- sh -c "$(client /run)" > /run/touchrouter.log 2>&1 &
measure touchrouter /run $!

as_kiosk() { XDG_RUNTIME_DIR=/run/xdg-kiosk HOME=/run/xdg-kiosk /usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups env WLR_RENDERER=pixman "$@"; }
as_kiosk cage -- sh -c "$(client /run/xdg-kiosk)" > /run/cage.log 2>&1 &
measure cage /run/xdg-kiosk $!
rm -f /run/xdg-kiosk/client.*

# sway centres a surface smaller than its tile (the client's 800x600 in 1280x800), where the
# strokes would miss it: floating at the corner, it sits where it does under the others.
printf 'default_border none\ndefault_floating_border none\nfor_window [app_id="touch-router-bench-client"] floating enable, border none, move absolute position 0 0\nexec sh -c "%s"\n' "$(client /run/xdg-kiosk)" > /run/sway.conf
as_kiosk sway -c /run/sway.conf > /run/sway.log 2>&1 &
measure sway /run/xdg-kiosk $!
verdict 0
