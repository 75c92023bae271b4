// A Qt Quick window that prints where each press lands, in its own coordinates, and
// quits on Escape; run by qmlscene (Qt 5) and qml (Qt 6) in TouchRouter's kiosk tests.
import QtQuick 2.0
import QtQuick.Window 2.0

Window {
    visible: true
    width: 400
    height: 300
    title: "tap-report"
    Component.onCompleted: console.log("ready")
    Rectangle {
        anchors.fill: parent
        color: "#204060"
        focus: true
        Keys.onEscapePressed: Qt.quit()
        MouseArea {
            anchors.fill: parent
            onPressed: (mouse) => console.log("press " + Math.round(mouse.x) + " " + Math.round(mouse.y) + " size " + width + "x" + height)
        }
    }
}
