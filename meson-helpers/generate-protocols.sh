#!/bin/sh
# Regenerates the committed wayland-scanner output, all of it in one C target,
# Sources/CWaylandProtocols, which every C target that speaks a protocol depends on:
#   - include/NAME-server-protocol.h for every protocol the session serves beyond libwayland's
#     core (which ships its own headers): CWaylandShim, and the bench floor server;
#   - include/NAME-client-protocol.h for the protocols a client of ours binds: the wayland
#     backend (CWaylandClientShim) and the bench client and injector;
#   - NAME-protocol.c, each protocol's interface data, the same for clients and servers, so
#     compiled once and linked once into every product (it needs wayland-util.h alone).
# include/module.modulemap is written by hand, not here.
#   sh meson-helpers/generate-protocols.sh           rewrite Sources/CWaylandProtocols
#   sh meson-helpers/generate-protocols.sh --check   fail if the committed output is stale
# A SwiftPM plugin cannot run wayland-scanner reliably, hence a script and a CI check.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Sources/CWaylandProtocols"
check=false
[ "${1:-}" = "--check" ] && check=true
command -v wayland-scanner >/dev/null || { echo "error: wayland-scanner not found (Debian: libwayland-bin)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/include"
# One protocol a line, so that adding one never touches another's line. Every one gets its
# server header and its interface data.
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
ext-idle-notify-v1
ext-session-lock-v1
wlr-screencopy-unstable-v1
wlr-output-power-management-unstable-v1
'
# The protocols a client of ours binds, which get a client header too: xdg-shell (the wayland
# backend, the bench client), input-timestamps and touch-router-input (the bench client), the
# virtual pointer and keyboard (the bench injector).
client_protocols='
xdg-shell
input-timestamps-unstable-v1
touch-router-input-v1
wlr-virtual-pointer-unstable-v1
virtual-keyboard-unstable-v1
'
for name in $protocols; do
    xml="$root/protocols/$name.xml"
    wayland-scanner server-header "$xml" "$work/include/$name-server-protocol.h"
    wayland-scanner private-code "$xml" "$work/$name-protocol.c"
done
for name in $client_protocols; do
    [ -e "$work/$name-protocol.c" ] || { echo "error: $name is a client protocol but not in the list of protocols" >&2; exit 1; }
    wayland-scanner client-header "$root/protocols/$name.xml" "$work/include/$name-client-protocol.h"
done

# Every generated file: what wayland-scanner made now, and what is committed.
fresh_files=$(cd "$work" && ls include/*-protocol.h *-protocol.c)
committed_files=$( (cd "$out" 2>/dev/null && ls include/*-protocol.h *-protocol.c 2>/dev/null) || true)
if $check; then
    for file in $fresh_files; do
        cmp -s "$work/$file" "$out/$file" || { echo "error: Sources/CWaylandProtocols/$file is not what wayland-scanner makes of protocols/; run sh meson-helpers/generate-protocols.sh" >&2; exit 1; }
    done
    for file in $committed_files; do
        [ -e "$work/$file" ] || { echo "error: Sources/CWaylandProtocols/$file is not generated from protocols/ any more; run sh meson-helpers/generate-protocols.sh" >&2; exit 1; }
    done
else
    mkdir -p "$out/include"
    for file in $committed_files; do
        [ -e "$work/$file" ] || rm -f "$out/$file"
    done
    for file in $fresh_files; do
        cmp -s "$work/$file" "$out/$file" || cp "$work/$file" "$out/$file"
    done
fi
# The XML taken from Debian's packages is kept as published: with --check, each committed copy
# must match the installed one (wayland-protocols 1.31, plasma-wayland-protocols).
if $check; then
    for pair in \
        xdg-decoration-unstable-v1:/usr/share/wayland-protocols/unstable/xdg-decoration \
        idle-inhibit-unstable-v1:/usr/share/wayland-protocols/unstable/idle-inhibit \
        ext-idle-notify-v1:/usr/share/wayland-protocols/staging/ext-idle-notify \
        ext-session-lock-v1:/usr/share/wayland-protocols/staging/ext-session-lock \
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
$check && echo "generated protocol code is current" || true
