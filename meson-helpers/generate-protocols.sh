#!/bin/sh
# Regenerates the committed wayland-scanner output for every protocol the session serves
# beyond libwayland's core (which ships its own server header), and the client header of
# xdg-shell for the wayland backend (a window on a host compositor), whose interface data
# is CWaylandShim's xdg-shell-protocol.c, linked once.
#   sh meson-helpers/generate-protocols.sh           rewrite Sources/CWaylandShim and Sources/CWaylandClientShim
#   sh meson-helpers/generate-protocols.sh --check   fail if the committed output is stale
# A SwiftPM plugin cannot run wayland-scanner reliably, hence a script and a CI check.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Sources/CWaylandShim"
client_out="$root/Sources/CWaylandClientShim"
check=false
[ "${1:-}" = "--check" ] && check=true
command -v wayland-scanner >/dev/null || { echo "error: wayland-scanner not found (Debian: libwayland-bin)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each pair is a fresh file in $work and where it is committed.
update() {
    fresh=$1 target=$2 name=$3
    if $check; then
        cmp -s "$fresh" "$target" || { echo "error: $target is not what wayland-scanner makes of protocols/$name.xml; run sh meson-helpers/generate-protocols.sh" >&2; exit 1; }
    else
        cp "$fresh" "$target"
    fi
}
# One protocol a line, so that adding one never touches another's line.
protocols='
xdg-shell
touch-router-input-v1
input-timestamps-unstable-v1
wlr-virtual-pointer-unstable-v1
virtual-keyboard-unstable-v1
xdg-output-unstable-v1
wlr-layer-shell-unstable-v1
xdg-shell-unstable-v6
relative-pointer-unstable-v1
pointer-constraints-unstable-v1
primary-selection-unstable-v1
gtk-primary-selection
text-input-unstable-v3
input-method-unstable-v2
wlr-foreign-toplevel-management-unstable-v1
xdg-decoration-unstable-v1
server-decoration
viewporter
presentation-time
fractional-scale-v1
xdg-activation-v1
single-pixel-buffer-v1
idle-inhibit-unstable-v1
idle
'
for name in $protocols; do
    xml="$root/protocols/$name.xml"
    wayland-scanner server-header "$xml" "$work/$name-server-protocol.h"
    wayland-scanner private-code "$xml" "$work/$name-protocol.c"
    for generated in "include/$name-server-protocol.h:$name-server-protocol.h" "$name-protocol.c:$name-protocol.c"; do
        update "$work/${generated##*:}" "$out/${generated%%:*}" "$name"
    done
done
# The XML taken from Debian's packages is kept as published: with --check, each committed copy
# must match the installed one (wayland-protocols 1.31, plasma-wayland-protocols).
if $check; then
    for pair in \
        xdg-decoration-unstable-v1:/usr/share/wayland-protocols/unstable/xdg-decoration \
        idle-inhibit-unstable-v1:/usr/share/wayland-protocols/unstable/idle-inhibit \
        viewporter:/usr/share/wayland-protocols/stable/viewporter \
        presentation-time:/usr/share/wayland-protocols/stable/presentation-time \
        fractional-scale-v1:/usr/share/wayland-protocols/staging/fractional-scale \
        xdg-activation-v1:/usr/share/wayland-protocols/staging/xdg-activation \
        single-pixel-buffer-v1:/usr/share/wayland-protocols/staging/single-pixel-buffer \
        server-decoration:/usr/share/plasma-wayland-protocols \
        idle:/usr/share/plasma-wayland-protocols; do
        name=${pair%%:*} installed=${pair#*:}/${pair%%:*}.xml
        cmp -s "$root/protocols/$name.xml" "$installed" || { echo "error: protocols/$name.xml differs from Debian's $installed" >&2; exit 1; }
    done
fi
# The client side: only the header; its interfaces are the ones above.
wayland-scanner client-header "$root/protocols/xdg-shell.xml" "$work/xdg-shell-client-protocol.h"
update "$work/xdg-shell-client-protocol.h" "$client_out/include/xdg-shell-client-protocol.h" xdg-shell
$check && echo "generated protocol code is current" || true
