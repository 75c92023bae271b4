#!/usr/bin/python3
# A GTK 4 window with a header bar (whose close button a kiosk must not show) that prints
# where each press lands in its content, in its own coordinates, and its size; run in
# TouchRouter's kiosk tests.
import sys
import gi
gi.require_version("Gtk", "4.0")
from gi.repository import Gtk, GLib


def activate(app):
    window = Gtk.ApplicationWindow(application=app, title="gtk4-tap-report")
    window.set_default_size(400, 300)
    window.set_titlebar(Gtk.HeaderBar())
    area = Gtk.DrawingArea()
    area.set_hexpand(True)
    area.set_vexpand(True)
    window.set_child(area)
    click = Gtk.GestureClick()
    click.set_touch_only(False)

    def pressed(gesture, n, x, y):
        # The area's origin in the window's surface, so the test compares surface coordinates.
        ax, ay = area.translate_coordinates(window, 0, 0)
        print(f"press {round(x)} {round(y)} area-origin {round(ax)} {round(ay)} size {area.get_width()}x{area.get_height()}", flush=True)

    click.connect("pressed", pressed)
    area.add_controller(click)
    window.connect("close-request", lambda w: print("close-request", flush=True) or False)
    window.present()
    GLib.timeout_add(300, lambda: print("ready", flush=True) and False)


app = Gtk.Application(application_id="org.touchrouter.Gtk4TapReport")
app.connect("activate", activate)
sys.exit(app.run([]))
