# The vt-switch scenario's screendump, taken back on VT 1: the screen was drawn again after the
# switch, with the cross of the tap made after it at (480, 200) of the 1280x800 screen.
set -euo pipefail
dir=$1 here=$2
# Read whole before it is matched: `grep -q` closing the pipe early failed it under pipefail.
[[ "$(python3 "$here/image-pixel.py" "$dir/vt-switch-back.ppm" 480 200 --near 2)" == *ff0000* ]] || { echo "no cross at (480, 200) after the switch back"; exit 1; }
echo "screen drawn again after the VT switch, the new tap's cross at (480, 200)"
# The cursor: no black tip where the pointer would be before the mouse moved, then the arrow's
# black tip at the pointer and its white inside below it.
read -r x y < <(tr -d '\r' < "$dir/serial.log" | sed -n 's/^POINTER \([0-9]*\)[0-9.]* \([0-9]*\)[0-9.]*$/\1 \2/p')
[ -n "${x:-}" ] || { echo "the guest printed no pointer position"; exit 1; }
tip=$(python3 "$here/image-pixel.py" "$dir/vt-switch-cursor.ppm" "$x" "$y" | sed -n 2p)
inside=$(python3 "$here/image-pixel.py" "$dir/vt-switch-cursor.ppm" $((x + 1)) $((y + 4)) | sed -n 2p)
before=$(python3 "$here/image-pixel.py" "$dir/vt-switch-back.ppm" "$x" "$y" | sed -n 2p)
[ "$tip" = 000000 ] && [ "$inside" = ffffff ] && [ "$before" != 000000 ] || { echo "cursor at ($x, $y): tip $tip, inside $inside, before the mouse $before"; exit 1; }
echo "the cursor's tip at the pointer ($x, $y) once the mouse moved, not before"
