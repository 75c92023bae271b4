# The drm scenario's captures, on the host: $1 is the scenario's directory, $2 Tests/KernelInputVM.
# The finger was at (600, 300) of the 800x600 panel, which the 90° turn shows at (300, 200) of
# the layout. Each capture must be red near there (weston-simple-touch's cross) and not where
# the other turn (270°) or no turn would have put it.
set -euo pipefail
dir=$1 here=$2
# Each output is read whole before it is matched: `grep -q` or `head` closing the pipe early
# made image-pixel.py fail with a broken pipe, and under pipefail the check with it.
near_red() { # FILE-KIND X Y: a red pixel within 2 of (X, Y)
    [[ "$(python3 "$here/image-pixel.py" "$@" --near 2)" == *ff0000* ]]
}
size() { python3 "$here/image-pixel.py" "$1" 0 0 | sed -n 1p; }
[ "$(size "$dir/drm-rotated.ppm")" = 800x600 ] || { echo "screendump is not 800x600"; exit 1; }
[ "$(size "$dir/drm-rotated.png")" = 600x800 ] || { echo "screenshot is not 600x800"; exit 1; }
near_red "$dir/drm-rotated.ppm" 599 300 || { echo "screendump: no cross under the finger at (599, 300)"; exit 1; }
near_red "$dir/drm-rotated.png" 300 200 || { echo "screenshot: no cross at (300, 200)"; exit 1; }
! near_red "$dir/drm-rotated.ppm" 200 300 || { echo "screendump: a cross where a 270° turn would put it"; exit 1; }
! near_red "$dir/drm-rotated.png" 450 400 || { echo "screenshot: a cross where no turn would put it"; exit 1; }
echo "screendump (panel) red at (599, 300) and screenshot (layout) red at (300, 200)"
