# The drm-hotplug scenario's capture of the second head: weston-simple-touch, moved there when
# the first screen was unplugged, shows its cross at (120, 100) of it, where the touch was.
# The touchscreen's taps show too: (320, 200) and (480, 200), tapped while it was mapped to
# the first screen, and device (128, 768) of 4096 on this head, tapped once it was mapped here.
set -euo pipefail
dir=$1 here=$2
# Read whole before grep: `grep -q` closing the pipe early failed the pipeline under pipefail.
pixels() { python3 "$here/image-pixel.py" "$@"; }
head2=$dir/drm-hotplug-head2.ppm
[[ "$(pixels "$head2" 120 100 --near 2)" == *ff0000* ]] || { echo "second head: no cross at (120, 100)"; exit 1; }
[[ "$(pixels "$head2" 400 300 --near 2)" != *ff0000* ]] || { echo "second head: red where nothing was touched"; exit 1; }
for point in "320 200" "480 200"; do
    [[ "$(pixels "$head2" $point --near 2)" == *ff0000* ]] || { echo "second head: no cross at ($point), tapped on the first"; exit 1; }
done
size=$(pixels "$head2" 0 0 | sed -n 1p)
x=$((${size%x*} * 128 / 4096)) y=$((${size#*x} * 768 / 4096))
[[ "$(pixels "$head2" $x $y --near 2)" == *ff0000* ]] || { echo "second head ($size): no cross at ($x, $y), the touchscreen's tap on it"; exit 1; }
echo "second head ($size) red at (120, 100), where the moved window was touched, at (320, 200) and (480, 200), and at ($x, $y), the touchscreen's taps"
