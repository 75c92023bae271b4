# The vt-switch scenario's screendump, taken back on VT 1: the screen was drawn again after the
# switch, with the cross of the tap made after it at (480, 200) of the 1280x800 screen.
set -euo pipefail
dir=$1 here=$2
python3 "$here/image-pixel.py" "$dir/vt-switch-back.ppm" 480 200 --near 2 | grep -q ff0000 || { echo "no cross at (480, 200) after the switch back"; exit 1; }
echo "screen drawn again after the VT switch, the new tap's cross at (480, 200)"
