#!/usr/bin/python3
"""A Qt 5 client for the session tests: a line edit above a button. It prints where the
button is in its window, "tapped" when the button is clicked (by touch or pointer), and
"typed:TEXT" when Return is pressed in the line edit, then quits. It prints "active" when its
window becomes Qt's focus window: on xdg-shell Qt takes that from the configure's activated
state, and drops keys that come before it."""
import sys

from PyQt5.QtCore import Qt
from PyQt5.QtWidgets import QApplication, QLineEdit, QPushButton, QVBoxLayout, QWidget

app = QApplication(sys.argv)
window = QWidget()
window.setWindowTitle("qt-form")
layout = QVBoxLayout(window)
edit = QLineEdit()
button = QPushButton("Tap")
button.setFocusPolicy(Qt.NoFocus)  # A tap leaves the keys to the line edit.
layout.addWidget(edit)
layout.addWidget(button)
window.resize(300, 120)


def typed():
    print(f"typed:{edit.text()}", flush=True)
    app.quit()


edit.returnPressed.connect(typed)
app.focusWindowChanged.connect(lambda focused: print("active" if focused is not None else "inactive", flush=True))
button.clicked.connect(lambda: print("tapped", flush=True))
window.show()
edit.setFocus()
app.processEvents()
centre = button.geometry().center()
print(f"button {centre.x()} {centre.y()}", flush=True)
sys.exit(app.exec_())
