# The drm-hotplug scenario's capture of the second head: weston-simple-touch, moved there when
# the first screen was unplugged, shows its cross at (120, 100) of it, where the touch was.
set -euo pipefail
dir=$1 here=$2
# Read whole before grep: `grep -q` closing the pipe early failed the pipeline under pipefail.
pixels() { python3 "$here/image-pixel.py" "$@"; }
[[ "$(pixels "$dir/drm-hotplug-head2.ppm" 120 100 --near 2)" == *ff0000* ]] || { echo "second head: no cross at (120, 100)"; exit 1; }
[[ "$(pixels "$dir/drm-hotplug-head2.ppm" 400 300 --near 2)" != *ff0000* ]] || { echo "second head: red where nothing was touched"; exit 1; }
echo "second head red at (120, 100), where the moved window was touched"
