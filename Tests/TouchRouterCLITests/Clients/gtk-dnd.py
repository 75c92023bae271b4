#!/usr/bin/python3
"""GTK 3 drag and drop, for DragAndDropTests (Debian's python3-gi and gir1.2-gtk-3.0; run with
Debian's /usr/bin/python3, whose dist-packages hold gi).

    gtk-dnd.py source   an undecorated 120x120 window that is all drag source, offering
                        text/plain;charset=utf-8 "gtk drag payload ✓" for copy; prints "drag-begin",
                        "data-get", "drag-end" and "drag-failed" as GTK says them
    gtk-dnd.py target   an undecorated 300x300 window that is all drop target for text/plain;charset=utf-8;
                        prints "drag-motion" once, then "received 'TEXT'" (ascii() of it) and exits 0 at the drop
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

PAYLOAD = "gtk drag payload \u2713"
# With no charset GTK would write the text as ASCII, the check mark as \u2713.
MIME = "text/plain;charset=utf-8"


def say(text):
    print(text, flush=True)


def source():
    window = Gtk.Window(title="dnd source")
    window.set_decorated(False)
    window.set_default_size(120, 120)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag me"))
    window.add(box)
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [Gtk.TargetEntry.new(MIME, 0, 0)], Gdk.DragAction.COPY)
    box.connect("drag-begin", lambda *_: say("drag-begin"))
    box.connect("drag-end", lambda *_: say("drag-end"))

    def failed(_widget, _context, result):
        say(f"drag-failed {result.value_nick}")
        return False
    box.connect("drag-failed", failed)

    def data_get(_widget, _context, data, _info, _time):
        say("data-get")
        data.set_text(PAYLOAD, -1)
    box.connect("drag-data-get", data_get)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()
    return 0


def target():
    window = Gtk.Window(title="dnd target")
    window.set_decorated(False)
    window.set_default_size(300, 300)
    label = Gtk.Label(label="drop here")
    window.add(label)
    label.drag_dest_set(Gtk.DestDefaults.ALL, [Gtk.TargetEntry.new(MIME, 0, 0)], Gdk.DragAction.COPY)
    moved = []

    def motion(*_):
        if not moved:
            moved.append(True)
            say("drag-motion")
        return False
    label.connect("drag-motion", motion)

    def received(_widget, _context, _x, _y, data, _info, _time):
        say(f"received {data.get_text()!a}")
        # Leave the main loop once GTK has finished the drop (DestDefaults.ALL finishes it).
        Gdk.threads_add_timeout(0, 300, lambda: Gtk.main_quit())
    label.connect("drag-data-received", received)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit({"source": source, "target": target}[sys.argv[1]]())
