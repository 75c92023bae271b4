import Foundation
import Testing

/// Drag and drop (wl_data_device version 3) in a live session, between two clients written
/// against the wire protocol (Clients/dnd-client.py): a source whose 100×100 window starts
/// the drag from a button press or a touch down, and a target whose 300×300 window, under
/// it, accepts text/plain. Input is injected through the control socket.
@Suite("Drag and drop by pointer and by touch between two clients", .serialized)
struct DragAndDropTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/dnd-client.py").path

    /// A session with the target's window and the source's above it; where each is.
    struct Scene {
        let session: RunningSession
        let source: Process, target: Process
        let sourceLog: URL, targetLog: URL
        /// A point inside the source's window, and one inside the target's but outside the source's.
        let start: (x: Int, y: Int), over: (x: Int, y: Int)
        let targetOrigin: [Int]

        var sourceText: String { RunningSession.text(of: sourceLog) }
        var targetText: String { RunningSession.text(of: targetLog) }
        func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
        /// What the source printed after `marker`.
        func sourceAfter(_ marker: String) -> [String] { Array(lines(sourceText).drop { $0 != marker }.dropFirst()) }

        init(source how: String = "", target targetHow: String = "") throws {
            let session = try RunningSession()
            let targetLog = session.file("target.log"), sourceLog = session.file("source.log")
            let target = try session.client(["python3", DragAndDropTests.client, "target", "300"] + (targetHow.isEmpty ? [] : [targetHow]), output: targetLog)
            try session.wait(for: "the target to map") { try RunningSession.text(of: targetLog).contains("mapped") && session.toplevels().count == 1 }
            let source = try session.client(["python3", DragAndDropTests.client, "source", "100"] + (how.isEmpty ? [] : [how]), output: sourceLog)
            try session.wait(for: "the source to map") { try RunningSession.text(of: sourceLog).contains("mapped") && session.toplevels().count == 2 }
            let windows = try session.toplevels()
            let targetWindow = windows.first { $0["size"] as? [Int] == [300, 300] }, sourceWindow = windows.first { $0["size"] as? [Int] == [100, 100] }
            let targetOrigin = targetWindow?["position"] as? [Int] ?? [0, 0]
            let sourceOrigin = sourceWindow?["position"] as? [Int] ?? [0, 0]
            (self.session, self.source, self.target, self.sourceLog, self.targetLog, self.targetOrigin) = (session, source, target, sourceLog, targetLog, targetOrigin)
            start = (sourceOrigin[0] + 18, sourceOrigin[1] + 18)
            over = (targetOrigin[0] + 250, targetOrigin[1] + 200)
            #expect(over.x >= sourceOrigin[0] + 100 || over.y >= sourceOrigin[1] + 100, "the drop point is clear of the source's window")
        }

        /// Presses at `start`, moves a little, then onto the target's window and 10 px on.
        func pointerDragOnto(_ point: (x: Int, y: Int)? = nil) throws {
            let point = point ?? over
            try session.inject(["pointer motion \(start.x) \(start.y)", "pointer button press BTN_LEFT"])
            try session.wait(for: "the source to start the drag") { sourceText.contains("dragging") }
            try session.inject(["pointer motion \(start.x + 10) \(start.y + 10)", "pointer motion \(point.x) \(point.y)", "pointer motion \(point.x + 10) \(point.y + 10)"])
        }

        func touchDragOnto(_ point: (x: Int, y: Int)? = nil) throws {
            let point = point ?? over
            try session.inject(["touch down 4 \(start.x) \(start.y)", "touch frame"])
            try session.wait(for: "the source to start the drag") { sourceText.contains("dragging") }
            try session.inject(["touch motion 4 \(start.x + 10) \(start.y + 10)", "touch frame", "touch motion 4 \(point.x) \(point.y)", "touch frame",
                                "touch motion 4 \(point.x + 10) \(point.y + 10)", "touch frame"])
        }

        /// The target heard enter at the drop point's local coordinates, with the offer, and the motion after it.
        func expectEnteredTarget(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let local = (x: over.x - targetOrigin[0], y: over.y - targetOrigin[1])
            try session.wait(for: "the target to hear the motion after enter") { targetText.contains("device motion \(local.x + 10) \(local.y + 10)") }
            let heard = lines(targetText)
            let enter = heard.firstIndex(of: "device enter \(local.x) \(local.y) offer")
            #expect(enter != nil, "enter at the surface-local point (\(local.x), \(local.y)): \(heard)", sourceLocation: sourceLocation)
            #expect(heard.contains("offered text/plain") && heard.contains("offer source_actions 3"), "\(heard)", sourceLocation: sourceLocation)
            try session.wait(for: "the source to hear what the target accepted") { sourceText.contains("source target text/plain") && sourceText.contains("source action 1") }
        }

        /// The drop went through: the target received what the source wrote, and the source heard the drop and the finish.
        func expectDropped(sourceLocation: SourceLocation = #_sourceLocation) throws {
            try session.wait(for: "the target to receive and finish") { targetText.contains("finished") }
            try session.wait(for: "the source to hear dnd_finished") { sourceText.contains("source dnd_finished") }
            let wrote = sourceText.firstMatch(of: /source wrote (\d+) ([0-9a-f]{64}) as text\/plain/)
            let received = targetText.firstMatch(of: /received (\d+) ([0-9a-f]{64})/)
            #expect(wrote != nil && received != nil && wrote?.1 == "200000" && wrote?.1 == received?.1 && wrote?.2 == received?.2,
                    "the target has exactly the source's 200,000 bytes: \(sourceText) \(targetText)", sourceLocation: sourceLocation)
            let order = ["source target text/plain", "source action 1", "source dnd_drop_performed", "source dnd_finished"].map { lines(sourceText).firstIndex(of: $0) ?? -1 }
            #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "the source's events in order: \(sourceText)", sourceLocation: sourceLocation)
            #expect(!sourceText.contains("source cancelled"), sourceLocation: sourceLocation)
            let heard = lines(targetText)
            #expect((heard.firstIndex(of: "device drop") ?? .max) < (heard.firstIndex { $0.hasPrefix("received ") } ?? -1), "\(heard)", sourceLocation: sourceLocation)
        }
    }

    @Test("a pointer drag: the target hears enter at its local point with an offer of text/plain, and motion; it accepts and sets copy; at the release it hears drop and receives exactly the source's bytes; the source hears target, action, dnd_drop_performed and dnd_finished, and no pointer event while it drags")
    func pointerDrag() throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto()
        try scene.expectEnteredTarget()
        try scene.session.inject(["pointer button release BTN_LEFT"])
        try scene.expectDropped()
        let dragging = scene.sourceAfter("dragging")
        #expect(dragging.first == "pointer leave", "the pointer leaves the source as the drag takes it: \(dragging)")
        #expect(!dragging.contains { $0.hasPrefix("pointer motion") || $0.hasPrefix("pointer button") }, "no motion or release reaches the source: \(dragging)")
        #expect(scene.lines(scene.targetText).contains("device leave"), "the target hears leave after the drop")
        #expect(scene.session.process.isRunning)
    }

    @Test("a touch drag: the source gets wl_touch.cancel and nothing more of that finger; the target hears enter, motion and drop and receives exactly the source's bytes; the source hears dnd_finished")
    func touchDrag() throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        try scene.touchDragOnto()
        try scene.expectEnteredTarget()
        try scene.session.inject(["touch up 4", "touch frame"])
        try scene.expectDropped()
        let afterCancel = scene.sourceAfter("touch cancel")
        #expect(scene.sourceAfter("dragging").contains("touch cancel"), "the finger is taken: \(scene.sourceText)")
        #expect(!afterCancel.contains { $0.hasPrefix("touch ") }, "nothing of the finger after wl_touch.cancel: \(afterCancel)")
        // The next touch is the source's again.
        try scene.session.inject(["touch down 5 \(scene.start.x) \(scene.start.y)", "touch frame", "touch up 5", "touch frame"])
        try scene.session.wait(for: "the next touch to reach the source") { scene.sourceAfter("touch cancel").contains("touch up") }
    }

    @Test("released over the background, or over a target that accepted nothing: the source is cancelled and nobody hears drop",
          arguments: [("", true), ("refuse", false)])
    func cancelledRelease(targetHow: String, overNothing: Bool) throws {
        let scene = try Scene(target: targetHow)
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto(overNothing ? (x: 1000, y: 800) : nil)
        if !overNothing { try scene.session.wait(for: "the target to hear enter") { scene.targetText.contains("device enter") } }
        try scene.session.inject(["pointer button release BTN_LEFT"])
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
        usleep(200_000)
        #expect(!scene.targetText.contains("device drop") && !scene.sourceText.contains("dnd_drop_performed"), "\(scene.targetText)")
        #expect(!scene.sourceText.contains("source target text/plain"), "\(scene.sourceText)")
    }

    @Test("start_drag with a serial no press had: the source is cancelled at once and the pointer stays the client's (its release reaches it)")
    func badSerial() throws {
        let scene = try Scene(source: "bad-serial")
        defer { _ = scene.session.terminate() }
        try scene.session.inject(["pointer motion \(scene.start.x) \(scene.start.y)", "pointer button press BTN_LEFT"])
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
        try scene.session.inject(["pointer motion \(scene.over.x) \(scene.over.y)", "pointer button release BTN_LEFT"])
        try scene.session.wait(for: "the release to reach the source") { scene.sourceAfter("dragging").contains("pointer button") }
        #expect(!scene.sourceAfter("dragging").contains("pointer leave") || scene.sourceAfter("dragging").firstIndex(of: "pointer button")! < scene.sourceAfter("dragging").firstIndex(of: "pointer leave")!,
                "the pointer was not taken: \(scene.sourceText)")
        #expect(!scene.targetText.contains("device enter"), "no target hears of the refused drag")
    }

    @Test("the target killed mid-drag: the session runs on, and the source is cancelled at the release")
    func targetKilled() throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        try scene.touchDragOnto()
        try scene.expectEnteredTarget()
        kill(scene.target.processIdentifier, SIGKILL)
        scene.target.waitUntilExit()
        try scene.session.wait(for: "the target's window to leave") { try scene.session.toplevels().count == 1 }
        try scene.session.inject(["touch motion 4 \(scene.over.x + 20) \(scene.over.y + 20)", "touch frame", "touch up 4", "touch frame"])
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
        #expect(scene.session.process.isRunning)
        #expect(try scene.session.msg("tree").json["ok"] as? Bool == true)
        #expect(!scene.sourceText.contains("dnd_drop_performed"))
    }

    @Test("the source killed mid-drag: the target hears leave, and the session runs on")
    func sourceKilled() throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto()
        try scene.expectEnteredTarget()
        kill(scene.source.processIdentifier, SIGKILL)
        scene.source.waitUntilExit()
        try scene.session.wait(for: "the target to hear leave") { scene.targetText.contains("device leave") }
        try scene.session.inject(["pointer motion \(scene.over.x + 20) \(scene.over.y + 20)", "pointer button release BTN_LEFT"])
        usleep(200_000)
        #expect(!scene.targetText.contains("device drop"), "\(scene.targetText)")
        #expect(scene.lines(scene.targetText).filter { $0.hasPrefix("device enter") }.count == 1, "the ended drag enters nothing again: \(scene.targetText)")
        #expect(try scene.session.msg("tree").json["ok"] as? Bool == true)
    }

    @Test("ignoring interaction mid-drag cancels the drag: the source hears cancelled, the target leave, and nobody drop",
          arguments: ["pointer", "touch"])
    func ignoredInteraction(by input: String) throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        if input == "touch" { try scene.touchDragOnto() } else { try scene.pointerDragOnto() }
        try scene.expectEnteredTarget()
        #expect(try scene.session.msg("ignore-interaction", "on").status == 0)
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
        try scene.session.wait(for: "the target to hear leave") { scene.targetText.contains("device leave") }
        try scene.session.inject([input == "touch" ? "touch up 4" : "pointer button release BTN_LEFT"])
        #expect(try scene.session.msg("ignore-interaction", "off").status == 0)
        usleep(200_000)
        #expect(!scene.targetText.contains("device drop") && !scene.sourceText.contains("dnd_drop_performed"), "\(scene.targetText)")
        #expect((try scene.session.msg("focus").json["touches"] as? [Any])?.isEmpty == true, "no touch is left down")
    }

    @Test("the output whose responder holds a touch drag's finger is removed: the drag is cancelled, not left running for ever")
    func outputRemovedMidTouchDrag() throws {
        let scene = try Scene()
        defer { _ = scene.session.terminate() }
        #expect(try scene.session.msg("output", "create", "800x600").status == 0)
        try scene.touchDragOnto()
        try scene.expectEnteredTarget()
        #expect(try scene.session.msg("output", "remove", "HEADLESS-1").status == 0)
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
        #expect(!scene.targetText.contains("device drop"))
        #expect(try scene.session.msg("tree").json["ok"] as? Bool == true)
    }

    @Test("a drag with no source stays within its client: the origin hears enter with no offer, the other client nothing, and nobody hears drop")
    func nullSource() throws {
        let scene = try Scene(source: "null")
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto()
        try scene.session.wait(for: "the origin to hear enter and leave") { scene.sourceText.contains("device enter 18 18 nooffer") && scene.sourceText.contains("device leave") }
        try scene.session.inject(["pointer button release BTN_LEFT"])
        usleep(200_000)
        #expect(!scene.targetText.contains("device "), "\(scene.targetText)")
        #expect(!scene.sourceText.contains("device drop"), "\(scene.sourceText)")
    }

    @Test("the drag's icon (role dnd_icon) is drawn over the windows with its top left at the pointer moved by its committed offset, and goes with the drop")
    func iconFollowsPointer() throws {
        let scene = try Scene(source: "icon")
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto()
        try scene.expectEnteredTarget()
        // The pointer is at `over` + 10; the icon's 20×20 red from 5 px up and left of it. The
        // points asked are clear of the cursor's arrow, whose tip is at the pointer.
        let pointer = (x: scene.over.x + 10, y: scene.over.y + 10)
        let points = [(pointer.x + 12, pointer.y + 2), (pointer.x - 5, pointer.y + 14), (pointer.x + 14, pointer.y - 5), (pointer.x + 16, pointer.y + 16), (pointer.x - 7, pointer.y - 7)]
        let during = scene.session.file("during.png").path
        #expect(try scene.session.msg("screenshot", during).status == 0)
        let drawn = try DecodedPNG(during, points: points).colours
        #expect(drawn.prefix(3).allSatisfy { $0 == "ff0000" }, "the icon's corners and inside are red: \(drawn)")
        #expect(drawn.suffix(2).allSatisfy { $0 != "ff0000" }, "nothing red outside the icon: \(drawn)")
        try scene.session.inject(["pointer button release BTN_LEFT"])
        try scene.expectDropped()
        let after = scene.session.file("after.png").path
        #expect(try scene.session.msg("screenshot", after).status == 0)
        let gone = try DecodedPNG(after, points: points).colours
        #expect(gone.allSatisfy { $0 != "ff0000" }, "the icon goes with the drop: \(gone)")
    }

    @Test("finish before the drop is wl_data_offer's invalid_finish: the target is ended, the source cancelled at the release")
    func finishBeforeDrop() throws {
        let scene = try Scene(target: "finish-early")
        defer { _ = scene.session.terminate() }
        try scene.pointerDragOnto()
        try scene.session.wait(for: "the target to be ended") { !scene.target.isRunning }
        #expect(scene.targetText.range(of: "error \\d+ 0: wl_data_offer@\\d+\\.finish before the drop", options: .regularExpression) != nil, "\(scene.targetText)")
        try scene.session.inject(["pointer button release BTN_LEFT"])
        try scene.session.wait(for: "the source to be cancelled") { scene.sourceText.contains("source cancelled") }
    }

    @Test("an icon that has another role is wl_data_device's role error; set_actions after start_drag is wl_data_source's invalid_action_mask; wev beside goes on")
    func namedErrors() throws {
        try RunningSession.besideWev(["python3", Self.client, "errors"],
                                     expecting: "(?s)error object \\d+ code 0: wl_data_device@\\d+\\.start_drag: icon wl_surface@\\d+ already has the role toplevel.*error object \\d+ code 0: wl_data_source@\\d+\\.set_actions after start_drag")
    }
}

/// Drag and drop between two GTK 3 programs (Clients/gtk-dnd.py, on Debian's python3-gi and
/// gir1.2-gtk-3.0): a window that is all drag source and one that is all drop target, each
/// with its own WAYLAND_DEBUG log.
@Suite("Drag and drop between two GTK 3 programs, by pointer and by touch", .serialized)
struct GTKDragAndDropTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/gtk-dnd.py").path

    /// What a client printed itself, without its WAYLAND_DEBUG lines.
    static func said(_ log: URL) -> [String] { RunningSession.text(of: log).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("[") } }
    static func messages(_ log: URL) -> [String] { RunningSession.text(of: log).split(separator: "\n").map(String.init).filter { $0.hasPrefix("[") } }

    @Test("GTK's drag source starts the drag from a button press's or a touch down's serial; GTK's drop target receives its text exactly; by touch, the source gets wl_touch.cancel and nothing more of that finger",
          arguments: ["pointer", "touch"])
    func gtkToGTK(by input: String) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let environment = ["GDK_BACKEND": "wayland", "WAYLAND_DEBUG": "1"]
        let targetLog = session.file("gtk-target.log"), sourceLog = session.file("gtk-source.log")
        let target = try session.client(["/usr/bin/python3", Self.client, "target"], output: targetLog, environment: environment)
        try session.wait(for: "the GTK target to map") { try session.toplevels().contains { $0["size"] as? [Int] == [300, 300] && $0["mapped"] as? Bool == true } }
        let source = try session.client(["/usr/bin/python3", Self.client, "source"], output: sourceLog, environment: environment)
        try session.wait(for: "the GTK source to map") { try session.toplevels().contains { $0["size"] as? [Int] == [120, 120] && $0["mapped"] as? Bool == true } }
        let windows = try session.toplevels()
        let targetOrigin = windows.first { $0["size"] as? [Int] == [300, 300] }?["position"] as? [Int] ?? [0, 0]
        let sourceOrigin = windows.first { $0["size"] as? [Int] == [120, 120] }?["position"] as? [Int] ?? [0, 0]
        let start = (x: sourceOrigin[0] + 28, y: sourceOrigin[1] + 28)
        let over = (x: targetOrigin[0] + 250, y: targetOrigin[1] + 250)
        #expect(over.x >= sourceOrigin[0] + 120 || over.y >= sourceOrigin[1] + 120)

        let touch = input == "touch"
        func move(_ x: Int, _ y: Int) throws {
            try session.inject(touch ? ["touch motion 1 \(x) \(y)", "touch frame"] : ["pointer motion \(x) \(y)"])
            usleep(50_000)
        }
        try session.inject(touch ? ["touch down 1 \(start.x) \(start.y)", "touch frame"] : ["pointer motion \(start.x) \(start.y)", "pointer button press BTN_LEFT"])
        // Past GTK's drag threshold (8 px), in steps.
        for step in 1...3 {
            try move(start.x + 5 * step, start.y + 5 * step)
        }
        try session.wait(for: "GTK to begin the drag") { Self.said(sourceLog).contains("drag-begin") && Self.messages(sourceLog).contains { $0.contains(".start_drag(") } }
        for point in [(over.x - 20, over.y - 20), (over.x, over.y), (over.x + 5, over.y + 5)] { try move(point.0, point.1) }
        try session.wait(for: "the GTK target to hear the drag") { Self.said(targetLog).contains("drag-motion") }
        try session.wait(for: "the source to hear the target accept") { Self.messages(sourceLog).contains { $0.contains("wl_data_source@") && $0.contains(".target(\"text/plain;charset=utf-8\")") } }
        try session.inject(touch ? ["touch up 1", "touch frame"] : ["pointer button release BTN_LEFT"])
        try session.wait(for: "the GTK target to receive the text and exit") { !target.isRunning }
        try session.wait(for: "the GTK source to hear dnd_finished") { Self.messages(sourceLog).contains { $0.contains(".dnd_finished()") } }

        #expect(Self.said(targetLog).contains("received 'gtk drag payload \\u2713'"), "the text, its check mark included: \(Self.said(targetLog))")
        #expect(!target.isRunning && target.terminationStatus == 0)
        #expect(Self.said(sourceLog).contains("data-get") && !Self.said(sourceLog).contains { $0.hasPrefix("drag-failed") }, "\(Self.said(sourceLog))")
        let messages = Self.messages(sourceLog)
        let startDrag = try #require(messages.firstIndex { $0.contains(".start_drag(") })
        let serial = messages[startDrag].firstMatch(of: /, (\d+)\)$/).map { String($0.1) }
        let pressSerial = touch
            ? messages.last { $0.contains("wl_touch@") && $0.contains(".down(") }?.firstMatch(of: /\.down\((\d+),/).map { String($0.1) }
            : messages.last { $0.contains("wl_pointer@") && $0.contains(".button(") && $0.hasSuffix(", 1)") }?.firstMatch(of: /\.button\((\d+),/).map { String($0.1) }
        #expect(serial != nil && serial == pressSerial, "start_drag carries the \(touch ? "touch down" : "button press")'s serial: \(messages[startDrag]), \(String(describing: pressSerial))")
        #expect(messages.contains { $0.contains("wl_data_source@") && $0.hasSuffix(".dnd_drop_performed()") })
        if touch {
            let cancel = try #require(messages.firstIndex { $0.contains("wl_touch@") && $0.hasSuffix(".cancel()") }, "the source's finger is taken")
            #expect(cancel > startDrag)
            let after = messages.dropFirst(cancel + 1).filter { $0.contains("wl_touch@") }
            #expect(after.isEmpty, "nothing of the finger after wl_touch.cancel: \(after)")
        } else {
            let after = messages.dropFirst(startDrag + 1).filter { $0.contains("wl_pointer@") && ($0.contains(".motion(") || $0.contains(".button(")) }
            #expect(after.isEmpty, "no pointer motion or button reaches the source while it drags: \(after)")
        }
        #expect(source.isRunning && session.process.isRunning)
    }
}
