#!/usr/bin/python3
"""A GTK 3 window holding one big button; prints "clicked" on each click, and "mapped"
once it is on screen. Run with GDK_BACKEND=wayland by RemoteSupportTests.swift."""
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib


def main():
    window = Gtk.Window(title="remote-button")
    window.set_default_size(400, 300)
    button = Gtk.Button(label="Press")
    button.connect("clicked", lambda _: print("clicked", flush=True))
    window.add(button)
    window.connect("destroy", Gtk.main_quit)
    window.connect("map-event", lambda *_: print("mapped", flush=True))
    window.show_all()
    Gtk.main()


main()
