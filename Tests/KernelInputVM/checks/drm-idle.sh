# The drm-idle scenario's screendumps. Lit: wev's window (its grey checkerboard, 640x480 at
# (0, 0)) on the session's background. Dark, with weston-simple-touch mapped meanwhile: all
# black (bochs blanks the VGA when the CRTC is off, and QEMU scans out black). Woken: drawn
# anew with weston-simple-touch (600x500 at (32, 32)), its translucent grey (0x40404040,
# premultiplied) over wev's checkerboard turning 666666 and eeeeee into 8c8c8c and f2f2f2;
# wev's strip above it as before, and the background.
set -euo pipefail
dir=$1 here=$2
# Read whole before it is matched: `grep -q` closing the pipe early failed it under pipefail.
pixels() { python3 "$here/image-pixel.py" "$@"; }
for capture in lit dark woke; do
    [ "$(pixels "$dir/idle-$capture.ppm" 0 0 | sed -n 1p)" = 1280x800 ] || { echo "idle-$capture: not 1280x800"; exit 1; }
done
checker() { [[ "$1" == *666666* && "$1" == *eeeeee* ]]; }
checker "$(pixels "$dir/idle-lit.ppm" 320 200 --near 8)" || { echo "lit: no wev checkerboard at (320, 200)"; exit 1; }
checker "$(pixels "$dir/idle-lit.ppm" 320 16 --near 8)" || { echo "lit: no wev checkerboard at (320, 16)"; exit 1; }
background=$(pixels "$dir/idle-lit.ppm" 900 600 | sed -n 2p)
[[ "$background" != 000000 && "$background" != 666666 && "$background" != eeeeee ]] || { echo "lit: background at (900, 600) is $background"; exit 1; }
# Every pixel of the dark capture black (a P6 of 1280x800 ends in its 3072000 bytes of pixels).
not_black=$(tail -c 3072000 "$dir/idle-dark.ppm" | tr -d '\000' | wc -c)
[ "$not_black" = 0 ] || { echo "dark: $not_black bytes of the screendump not black"; exit 1; }
covered=$(pixels "$dir/idle-woke.ppm" 320 200 --near 8)
[[ "$covered" == *8c8c8c* && "$covered" == *f2f2f2* && "$covered" != *666666* ]] || { echo "woke: no weston-simple-touch over wev at (320, 200), mapped while dark"; exit 1; }
checker "$(pixels "$dir/idle-woke.ppm" 320 16 --near 8)" || { echo "woke: no wev checkerboard at (320, 16)"; exit 1; }
[ "$(pixels "$dir/idle-woke.ppm" 900 600 | sed -n 2p)" = "$background" ] || { echo "woke: background at (900, 600) is not $background"; exit 1; }
echo "lit: wev's checkerboard on background $background; dark: all 1280x800 black; woke: drawn anew, weston-simple-touch mapped while dark over wev"
