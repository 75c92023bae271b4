import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland

/// The present stage (Handlers/Output/OutputFrames.swift, TouchRouterStats/LatencyPresents.swift):
/// a client answers each touch event with a commit (touch_router_surface_input_v1.answer)
/// and asks for presentation feedback; the session's frame clock presents it.
@Suite("Present stage: every answered touch event's commit is presented, in order, and counted in msg stats")
struct PresentStageTests {
    /// A client with a mapped window, its surface's input object and wp_presentation.
    struct Answering {
        let client: WireClient
        let window: Window
        let input: Proxy
        let presentation: Proxy
    }

    func answering(_ fixture: ProtocolFixture) throws -> Answering {
        let client = try fixture.connect("answering")
        let window = try fixture.mapToplevel(client, width: 400, height: 300)
        let manager = try #require(client.bind("touch_router_input_manager_v1", version: 3))
        let input = try #require(client.request(manager, "get_surface_input", window.surface))
        let presentation = try #require(client.bind("wp_presentation", version: 1))
        _ = try #require(client.request(try client.seat, "get_touch"))
        try fixture.roundtrip(client)
        return Answering(client: client, window: window, input: input, presentation: presentation)
    }

    /// The answer to the event at `time`: a dot drawn (damage only), with feedback, committed.
    @discardableResult
    func answer(_ app: Answering, eventTime time: RouterTime, dot: Int) throws -> Proxy {
        let seconds = UInt64(time.nanoseconds / 1_000_000_000)
        app.client.request(app.input, "answer", UInt32(seconds >> 32), UInt32(truncatingIfNeeded: seconds), UInt32(time.nanoseconds % 1_000_000_000))
        let feedback = try #require(app.client.request(app.presentation, "feedback", app.window.surface))
        app.client.request(app.window.surface, "attach", try app.client.buffer(width: 400, height: 300, argb: 0xFF00_0000 | UInt32(dot)), 0, 0)
        app.client.request(app.window.surface, "damage", Int32(dot % 390), 10, 8, 8)
        app.client.request(app.window.surface, "commit")
        return feedback
    }

    /// Serves until every feedback was presented or discarded (at most two seconds).
    func settle(_ fixture: ProtocolFixture, _ app: Answering, _ feedbacks: [Proxy]) throws {
        for _ in 0..<2000 {
            fixture.serveOnce()
            if feedbacks.allSatisfy({ !app.client.events(of: $0).filter { $0.name == "presented" || $0.name == "discarded" }.isEmpty }) { return }
            usleep(1000)
        }
        throw FixtureError("feedbacks not settled within 2 s")
    }

    @Test("each touch down, motion and up, answered in its own frame, gains committed and presented stages: present after commit after the event, frames in event order, touch_to_present and commit_to_present in msg stats")
    func everyAnswerPresented() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let app = try answering(fixture)
        var presented: [(client: ClientID, committed: RouterTime, shown: RouterTime, timelines: [EventTimeline])] = []
        fixture.server.hooks.onPresented = { presented.append(($0, $1, $2, $3)) }

        var eventTimes: [RouterTime] = []
        var feedbacks: [Proxy] = []
        let steps: [(ProtocolFixture) -> Void] = [{ $0.touchDown(1, x: 100, y: 100) }]
            + (1...6).map { i in { $0.touchMotion(1, x: 100 + Double(i) * 10, y: 100) } } + [{ $0.touchUp(1) }]
        for (index, step) in steps.enumerated() {
            step(fixture)
            fixture.serveOnce()
            let frame = app.client.events(interface: "wl_touch").last { $0.name == "down" || $0.name == "motion" || $0.name == "up" }
            #expect(frame != nil)
            // The fixture stamps each event with the session's clock when injected.
            let time = try #require(fixture.server.stats.latestDeviceTime(of: app.client.coreID))
            eventTimes.append(time)
            let feedback = try answer(app, eventTime: time, dot: index * 20)
            feedbacks.append(feedback)
            try settle(fixture, app, [feedback])
        }

        let answered = presented.flatMap { entry in entry.timelines.map { (entry, $0) } }
        #expect(answered.count == steps.count, "one present stage per answered event: \(answered.map { $0.1.stamps.device })")
        #expect(answered.map { RouterTime(nanoseconds: $0.1.stamps.device) } == eventTimes, "in the events' order")
        for (entry, timeline) in answered {
            #expect(entry.client == app.client.coreID)
            #expect(timeline.stamps.device <= timeline.stamps.committed && timeline.stamps.committed <= timeline.stamps.presented,
                    "device ≤ committed ≤ presented: \(timeline.stamps)")
            #expect(timeline.stamps.presented == entry.shown.nanoseconds)
        }
        let shown = presented.map(\.shown)
        #expect(shown == shown.sorted(), "frames in order")
        for feedback in feedbacks {
            let event = try #require(app.client.events(of: feedback, named: "presented").first)
            let nanoseconds = (Int64(event.uint(0)!) << 32 | Int64(event.uint(1)!)) * 1_000_000_000 + Int64(event.uint(2)!)
            #expect(shown.contains(RouterTime(nanoseconds: nanoseconds)), "the feedback's time is the frame's")
        }

        let stats = fixture.server.stats
        #expect(stats.summary(.deviceToPresented).count == UInt64(steps.count))
        #expect(stats.summary(.committedToPresented, client: app.client.coreID)?.count == UInt64(steps.count))
        #expect(stats.presentation.unmatched == 0)
        let json = stats.json()
        #expect(json.contains("\"touch_to_present\":{\"count\":\(steps.count)"), "\(json.prefix(400))")
        #expect(json.contains("\"commit_to_present\""))
    }

    @Test("two answers committed before one frame: the first commit's feedback is discarded, the second carries both answers to the screen")
    func supersededCommitCarriesAnswers() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let app = try answering(fixture)
        var timelines: [EventTimeline] = []
        fixture.server.hooks.onPresented = { timelines += $3 }
        fixture.touchDown(1, x: 50, y: 50)
        fixture.serveOnce()
        let down = try #require(fixture.server.stats.latestDeviceTime(of: app.client.coreID))
        fixture.touchMotion(1, x: 60, y: 50)
        fixture.serveOnce()
        let motion = try #require(fixture.server.stats.latestDeviceTime(of: app.client.coreID))
        // Both in one round: no frame can come between them.
        let first = try answer(app, eventTime: down, dot: 1)
        let second = try answer(app, eventTime: motion, dot: 2)
        try settle(fixture, app, [first, second])
        #expect(app.client.events(of: first, named: "discarded").count == 1)
        #expect(app.client.events(of: second, named: "presented").count == 1)
        #expect(timelines.map { RouterTime(nanoseconds: $0.stamps.device) } == [down, motion])
    }

    @Test("an answer naming no event sent is counted as unmatched, not recorded; a time that is not one is the protocol error invalid_time")
    func badAnswers() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let app = try answering(fixture)
        let feedback = try answer(app, eventTime: RouterTime(nanoseconds: 12_345), dot: 3)
        try settle(fixture, app, [feedback])
        #expect(fixture.server.stats.presentation.unmatched == 1)
        #expect(fixture.server.stats.summary(.deviceToPresented).count == 0)
        app.client.request(app.input, "answer", UInt32(0), UInt32(1), UInt32(1_000_000_000))
        let report = fixture.expectProtocolError(app.client, interface: "touch_router_surface_input_v1", code: 4)
        #expect(report?.message.contains("answer: the event time (sec_hi 0, sec_lo 1, nsec 1000000000) is not a time") == true, "\(String(describing: report))")
    }

    @Test("a client drawing in a loop on frame callbacks stays paced by the output's 60 Hz: an idle output composes at once, but one that just sent callbacks is not idle (at most 66 frames in a second)")
    func drawingLoopIsPaced() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect("animating")
        let window = try fixture.mapToplevel(client, width: 64, height: 64)
        let buffer = try client.buffer(width: 64, height: 64)
        var frames = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 1 {
            let callback = try #require(client.request(window.surface, "frame"))
            client.request(window.surface, "attach", buffer, 0, 0)
            client.request(window.surface, "damage", 0, 0, 64, 64)
            client.request(window.surface, "commit")
            while client.events(of: callback, named: "done").isEmpty, Date().timeIntervalSince(start) < 2 {
                fixture.serveOnce()
                usleep(200)
            }
            frames += 1
        }
        #expect(frames >= 5, "frames came at all: \(frames)")
        #expect(frames <= 66, "a frame callback a refresh, not one a commit: \(frames) in a second")
    }
    /// A screen that refuses the frames it is offered while `refusing`, and shows at once the
    /// others; it records the damage of each frame offered.
    final class RefusingScreen: OutputPresenter {
        var refusing = true
        var offered: [[PixelRect]?] = []
        var readyForFrame: Bool { true }
        func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
            offered.append(damage)
            if !refusing { onShown?(nil) }
            return !refusing
        }
        func setPowered(_ powered: Bool) throws {}
        var frameInFlight: Bool { false }
        var onShown: ((RouterTime?) -> Void)?
        func abandonFlip() {}
    }

    @Test("a frame the screen refuses (a page flip the kernel refused) is not presented: its feedback is discarded, its answer not recorded, frame callbacks still come, and the next frame is offered whole and presented")
    func refusedFrameIsNotPresented() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let app = try answering(fixture)
        let screen = RefusingScreen()
        let name = try #require(fixture.server.outputs.first?.name)
        try fixture.server.setPresenter(screen, forOutput: name)
        let callback = try #require(app.client.request(app.window.surface, "frame"))
        let refused = try answer(app, eventTime: RouterTime(nanoseconds: 1_000_000), dot: 1)
        try settle(fixture, app, [refused])
        #expect(app.client.events(of: refused, named: "discarded").count == 1)
        #expect(app.client.events(of: refused, named: "presented").isEmpty)
        // Its answer names no event sent, so a presented one would count as unmatched.
        #expect(fixture.server.stats.presentation.unmatched == 0, "a refused frame's answer is not taken up")
        for _ in 0..<200 where app.client.events(of: callback, named: "done").isEmpty {
            fixture.serveOnce()
            usleep(1000)
        }
        #expect(app.client.events(of: callback, named: "done").count == 1, "the client may draw again")
        let refusals = screen.offered.count
        #expect(refusals >= 1)

        screen.refusing = false
        let shown = try answer(app, eventTime: RouterTime(nanoseconds: 2_000_000), dot: 2)
        try settle(fixture, app, [shown])
        #expect(app.client.events(of: shown, named: "presented").count == 1)
        #expect(fixture.server.stats.presentation.unmatched == 1)
        #expect(screen.offered.count > refusals)
        #expect(screen.offered[refusals] == nil, "the frame after a refusal is offered whole: \(String(describing: screen.offered[refusals]))")
    }
}
