# The drm-rotate scenario's screendumps: the panel as the GPU scans it out, whatever the turn.
# wev fills the output (its checkerboard, 666666 and eeeeee); weston-simple-touch (600x500 at
# (0, 0) of the layout) lies over it, its translucent grey turning them 8c8c8c and f2f2f2, and
# shows a red cross wherever it was touched. A finger at device (u, v) of the touchscreen is
# at (u, v) of the panel, so each cross must be there, under the finger: with transform 90
# the layout's (x, y) is the panel's (W - 1 - y, x), with 270 its (y, H - 1 - x).
set -euo pipefail
dir=$1 here=$2
# Read whole before it is matched: `grep -q` closing the pipe early failed it under pipefail.
pixels() { python3 "$here/image-pixel.py" "$@"; }
near_red() { [[ "$(pixels "$@" --near 2)" == *ff0000* ]]; }
covered() { local p; p=$(pixels "$@" --near 8); [[ "$p" == *8c8c8c* && "$p" == *f2f2f2* && "$p" != *666666* ]]; }
bare() { local p; p=$(pixels "$@" --near 8); [[ "$p" == *666666* && "$p" == *eeeeee* && "$p" != *8c8c8c* ]]; }
size() { pixels "$1" 0 0 | sed -n 1p; }
for capture in normal:1280x800 90:1280x800 800x600:800x600 refused:800x600 270:1280x800; do
    [ "$(size "$dir/drm-rotate-${capture%%:*}.ppm")" = "${capture#*:}" ] || { echo "drm-rotate-${capture%%:*}: $(size "$dir/drm-rotate-${capture%%:*}.ppm"), not ${capture#*:}"; exit 1; }
done

# Unturned: weston-simple-touch at the panel's top left, wev beside it; the tap on wev drew nothing.
normal=$dir/drm-rotate-normal.ppm
covered "$normal" 300 250 || { echo "normal: no weston-simple-touch at (300, 250)"; exit 1; }
bare "$normal" 1000 250 || { echo "normal: no bare wev at (1000, 250)"; exit 1; }
! near_red "$normal" 960 600 || { echo "normal: red at (960, 600), where wev was tapped"; exit 1; }

# Turned 90: weston-simple-touch along the panel's right edge, from its top; the finger at
# device (3456, 1536) of 4096, (1080, 300) of the panel, and the cross there, not at (200, 499)
# where the same layout point would be shown turned 270.
turned=$dir/drm-rotate-90.ppm
covered "$turned" 1000 250 || { echo "90: no weston-simple-touch at (1000, 250)"; exit 1; }
bare "$turned" 300 250 || { echo "90: no bare wev at (300, 250)"; exit 1; }
near_red "$turned" 1080 300 || { echo "90: no cross under the finger at (1080, 300)"; exit 1; }
! near_red "$turned" 200 499 || { echo "90: a cross at (200, 499), where a 270° turn would show it"; exit 1; }

# 800x600, still turned 90: weston-simple-touch on the panel's right 500 columns; the new
# finger at device (2048, 1024), (400, 150) of this panel, and the first cross (layout (300, 200)) at (599, 300).
small=$dir/drm-rotate-800x600.ppm
covered "$small" 500 500 || { echo "800x600: no weston-simple-touch at (500, 500)"; exit 1; }
bare "$small" 150 300 || { echo "800x600: no bare wev at (150, 300)"; exit 1; }
near_red "$small" 400 150 || { echo "800x600: no cross under the finger at (400, 150)"; exit 1; }
near_red "$small" 599 300 || { echo "800x600: no earlier cross at (599, 300)"; exit 1; }
# The refused 1234x567 left the screen as it was, pixel for pixel.
cmp -s "$small" "$dir/drm-rotate-refused.ppm" || { echo "refused: the screen changed"; exit 1; }

# The [[output]] table's 270 at 1280x800: weston-simple-touch along the panel's left edge, from
# its bottom; the finger at device (320, 1792), (100, 350) of the panel; the earlier crosses
# (layout (300, 200) and (150, 400)) at (200, 499) and (400, 649); nothing left where 90 showed one.
other=$dir/drm-rotate-270.ppm
covered "$other" 250 500 || { echo "270: no weston-simple-touch at (250, 500)"; exit 1; }
bare "$other" 1000 500 || { echo "270: no bare wev at (1000, 500)"; exit 1; }
bare "$other" 250 100 || { echo "270: no bare wev at (250, 100)"; exit 1; }
near_red "$other" 100 350 || { echo "270: no cross under the finger at (100, 350)"; exit 1; }
near_red "$other" 200 499 || { echo "270: no earlier cross at (200, 499)"; exit 1; }
near_red "$other" 400 649 || { echo "270: no earlier cross at (400, 649)"; exit 1; }
! near_red "$other" 1080 300 || { echo "270: red at (1080, 300), where the 90° screen had its cross"; exit 1; }
echo "normal, 90, 800x600 (and unchanged when refused 1234x567) and 270: weston-simple-touch where each turn puts it, its crosses under the fingers at (1080, 300), (400, 150) and (100, 350) of the panel"
