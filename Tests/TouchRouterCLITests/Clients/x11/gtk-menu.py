#!/usr/bin/python3
"""A GTK 3 window for X11 (GDK_BACKEND=x11) at (100, 80): a button "Press" that prints
"clicked", and a button "Menu" that pops up a menu (an override-redirect X11 window) with
the items First and Second, each printing "activated NAME". Prints "mapped" once shown,
"button NAME X Y W H" for each button's root geometry, and "menu X Y W H" and "item NAME X Y W H"
once the menu is shown."""
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gtk, Gdk, GLib


def root_geometry(widget):
    allocation = widget.get_allocation()
    origin = widget.get_toplevel().get_window().get_origin()
    x, y = widget.translate_coordinates(widget.get_toplevel(), 0, 0)
    return origin[1] + x, origin[2] + y, allocation.width, allocation.height


def main():
    window = Gtk.Window(title="x11-menu")
    window.set_default_size(400, 300)
    window.move(100, 80)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10)
    press = Gtk.Button(label="Press")
    press.connect("clicked", lambda _: print("clicked", flush=True))
    menu_button = Gtk.Button(label="Menu")
    menu = Gtk.Menu()
    items = []
    for name in ("First", "Second"):
        item = Gtk.MenuItem(label=name)
        item.connect("activate", lambda _, n=name: print("activated", n, flush=True))
        menu.append(item)
        items.append((name, item))
    menu.show_all()

    def shown(*_):
        GLib.timeout_add(300, report_menu)

    def report_menu():
        toplevel = menu.get_toplevel()
        origin = toplevel.get_window().get_origin()
        print("menu %d %d %d %d" % (origin[1], origin[2], toplevel.get_allocated_width(), toplevel.get_allocated_height()), flush=True)
        for name, item in items:
            print("item %s %d %d %d %d" % ((name,) + root_geometry(item)), flush=True)
        return False

    menu.connect("map-event", shown)
    menu_button.connect("clicked", lambda b: menu.popup_at_widget(b, Gdk.Gravity.SOUTH_WEST, Gdk.Gravity.NORTH_WEST, None))
    box.pack_start(press, True, True, 0)
    box.pack_start(menu_button, True, True, 0)
    window.add(box)
    window.connect("destroy", Gtk.main_quit)

    def mapped(*_):
        def report():
            print("mapped", flush=True)
            for name, button in (("Press", press), ("Menu", menu_button)):
                print("button %s %d %d %d %d" % ((name,) + root_geometry(button)), flush=True)
            return False
        GLib.timeout_add(300, report)

    window.connect("map-event", mapped)
    window.show_all()
    Gtk.main()


main()
