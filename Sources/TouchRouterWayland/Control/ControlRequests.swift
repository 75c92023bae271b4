import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay

/// What answers each request of the control socket (ControlRequest.swift reads them), and
/// its reply line (JSONReply.swift writes them; docs/man/touch-router-msg.7.scd says them).
extension ControlServer {
    /// One request's reply; nil when it comes later (`play`).
    package func handle(_ line: String, from connection: Connection) -> String? {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(line, time: server.clock.now(), device: WaylandServer.injectionDevice)
        } catch {
            return JSONReply.failure(error.description)
        }
        switch request {
        case .devices:
            return JSONReply.ok(["devices": .array((server.hooks.deviceReport?() ?? []).map(JSONValue.verbatim))])
        case .tree:
            let inhibitors = server.protocols.idleInhibit.report(shown: server.tree.isShown)
            return JSONReply.ok([
                "outputs": .array(server.tree.outputs.map(outputJSON)),
                "idle_inhibitors": .array(inhibitors.map { ["surface": .number($0.surface.raw), "shown": .bool($0.shown)] }),
                "locked": .bool(server.router.sessionLocked),
            ])
        case .idle:
            return JSONReply.ok(merging: server.idleReport().json)
        case .pick(let point):
            let hit = server.tree.hitTest(point)
            let chain = server.router.fallbackChain(at: point).map { JSONValue.string($0.description) }
            return JSONReply.ok([
                "surface": .optional(hit) { ["id": .number($0.surface.raw), "local": .pair($0.local.x, $0.local.y)] },
                "chain": .array(chain),
            ])
        case .pixel(let point):
            guard let (surface, local, pixel) = server.pixel(at: point) else { return JSONReply.ok(["surface": nil, "argb": nil]) }
            return JSONReply.ok([
                "surface": ["id": .number(surface.raw), "local": .pair(local.x, local.y)],
                "argb": .optional(pixel) { .string("0x" + String($0, radix: 16)) },
            ])
        case .screenshot(let file, let output):
            return screenshot(file, output: output, for: connection)
        case .createOutput(let mode):
            let names = Set(server.outputs.map(\.name))
            let number = (1...).first { !names.contains("HEADLESS-\($0)") }!
            do {
                let name = try server.addOutput(OutputIdentity(name: "HEADLESS-\(number)", make: "TouchRouter", model: "virtual"), mode: mode)
                return JSONReply.ok(["output": .string(name)])
            } catch {
                return JSONReply.failure("output create: \(error)")
            }
        case .setOutput(let name, let change):
            do {
                let mode = try server.setOutput(named: name, change)
                return JSONReply.ok(["output": .string(name), "mode": .string("\(mode)"), "transform": .string(mode.transform.name), "scale": .number(mode.scale),
                                     "frame_margin_us": server.frameMargin(ofOutput: name).map { .number($0 / 1000) } ?? .null])
            } catch {
                return JSONReply.failure("output set: \(error)")
            }
        case .removeOutput(let name):
            do {
                try server.removeOutput(named: name)
                return JSONReply.ok(["removed": .string(name)])
            } catch {
                return JSONReply.failure("output remove: \(error)")
            }
        case .inject(let event):
            if case .touchDown = event, server.router.activeTouches.count >= Self.maximumInjectedTouches {
                return JSONReply.failure("inject: \(Self.maximumInjectedTouches) touches are down already, the most the control socket puts down; lift one first")
            }
            server.inject(event)
            return JSONReply.ok(["event": .string(EventSyntax.format(event))])
        case .focus:
            let pointer = server.router.pointerPosition
            let touches = server.router.activeTouches.map { touch -> JSONValue in
                ["id": .number(touch.id.raw), "surface": .optional(touch.surface) { .number($0.raw) }]
            }
            return JSONReply.ok([
                "keyboard": .optional(server.router.keyboardFocus) { .number($0.raw) },
                "pointer": .pair(pointer.x, pointer.y),
                "touches": .array(touches),
            ])
        case .ignoreInteraction(let on):
            if on {
                server.router.beginIgnoringInteraction()
            } else if !server.router.endIgnoringInteraction() {
                return JSONReply.failure("ignore-interaction off: interaction is not being ignored")
            }
            server.router.dispatchAll()
            return JSONReply.ok()
        case .trace:
            startTracing(for: connection)
            return JSONReply.ok(["tracing": true])
        case .subscribe(let topics):
            connection.subscriptions = topics
            return JSONReply.ok(["subscribed": .array(ShellTopic.allCases.filter(topics.contains).map { .string($0.rawValue) })])
        case .stats:
            return JSONReply.ok(merging: server.stats.json())
        case .statsReset:
            server.stats.reset()
            return JSONReply.ok(["reset": true])
        case .statsSlow:
            return JSONReply.ok(merging: server.stats.slowJSON())
        case .play(let workload, let log):
            return play(workload, log: log, for: connection)
        case .grantSocket(let grants):
            do {
                let path = try server.openGrantSocket(grants)
                return JSONReply.ok(["socket": .string(path), "grants": .array(Privilege.sortedNames(grants).map(JSONValue.string))])
            } catch {
                return JSONReply.failure("grant-socket: \(error)")
            }
        case .revokeSocket(let path):
            do {
                let kept = try server.revokeGrantSocket(path)
                return JSONReply.ok(["revoked": .string(path), "clients": .number(kept)])
            } catch {
                return JSONReply.failure("revoke-socket: \(error)")
            }
        case .reload:
            do {
                let file = try server.shell.reload()
                // The rest of the file is in force; an output whose screen refused its mode says so.
                let problems = server.shell.outputProblems
                if problems.isEmpty { return JSONReply.ok(["file": .optional(file, JSONValue.string)]) }
                return JSONReply.ok(["file": .optional(file, JSONValue.string), "output_errors": .array(problems.map(JSONValue.string))])
            } catch {
                return JSONReply.failure("reload failed, the old configuration stays: \(error)")
            }
        }
    }

    /// `screenshot`: composed and written on a thread of its own, as its time grows with the
    /// output's pixels (up to 16384², a GiB); the reply goes to the asking connection when the
    /// file is written. One at a time, so that their framebuffers do not add up.
    private func screenshot(_ file: String, output: String?, for connection: Connection) -> String? {
        guard !screenshotInFlight else { return JSONReply.failure("screenshot: one is being taken already; ask again when it is answered") }
        let job: ScreenshotJob
        do { job = try server.screenshotJob(output: output) } catch { return JSONReply.failure("screenshot: \(error)") }
        do {
            try server.runOffLoop("a screenshot", { () -> Result<ScreenshotJob, CompositionError> in
                do throws(CompositionError) { _ = try job.run(writingTo: file); return .success(job) } catch { return .failure(error) }
            }) { [unowned self, weak connection] result in
                self.screenshotInFlight = false
                guard let connection, self.connections[connection.fd] === connection else { return }
                connection.waiting = false
                switch result {
                case .success(let shot):
                    self.send(connection.fd, JSONReply.ok(["file": .string(file), "output": .string(shot.output), "width": .number(shot.width), "height": .number(shot.height)]))
                case .failure(let error):
                    self.send(connection.fd, JSONReply.failure("screenshot: \(error)"))
                }
            }
        } catch {
            return JSONReply.failure("screenshot: \(error)")
        }
        screenshotInFlight = true
        connection.waiting = true
        return nil
    }

    /// `play`: the reply goes to the asking connection when the workload ends.
    private func play(_ workload: Workload, log: String?, for connection: Connection) -> String? {
        guard player == nil else { return JSONReply.failure("play: a workload is playing already") }
        guard connections[connection.fd] === connection else { return nil }
        do {
            let player = try WorkloadPlayer(server: server, workload: workload, log: log) { [unowned self, weak connection] result in
                self.player = nil
                guard let connection, self.connections[connection.fd] === connection else { return }
                connection.waiting = false
                switch result {
                case .success(let members): self.send(connection.fd, JSONReply.ok(members: members))
                case .failure(let error): self.send(connection.fd, JSONReply.failure(error.description))
                }
            }
            try player.start()
            self.player = player
            connection.waiting = true
            return nil
        } catch {
            return JSONReply.failure(error.description)
        }
    }

    private func outputJSON(_ output: OutputSnapshot) -> JSONValue {
        let rect = output.rect
        let mode = server.outputs.first { $0.id == output.id }?.mode
        return [
            "id": .number(output.id.raw),
            "name": .string(output.name),
            "rect": [.number(rect.x), .number(rect.y), .number(rect.width), .number(rect.height)],
            "power": .string((server.protocols.output.power[output.id] ?? .on).rawValue),
            "mode": mode.map { JSONValue.string("\($0)") } ?? .null,
            "transform": mode.map { JSONValue.string($0.transform.name) } ?? .null,
            "scale": mode.map { JSONValue.number($0.scale) } ?? .null,
            "frame_margin_us": server.protocols.output.frameClocks[output.id].map { JSONValue.number($0.schedule.margin / 1000) } ?? .null,
            "late_compositions": server.protocols.output.frameClocks[output.id].map { JSONValue.number($0.schedule.lateCompositions) } ?? .null,
            "toplevels": .array(output.toplevels.map(surfaceJSON)),
        ]
    }

    private func surfaceJSON(_ id: SurfaceID) -> JSONValue {
        guard let surface = server.tree.surface(id) else { return .null }
        return [
            "id": .number(id.raw),
            "role": .string(surface.role.rawValue),
            "client": .number(surface.client.raw),
            "label": .string(surface.label),
            "position": [.number(surface.position.dx), .number(surface.position.dy)],
            "size": [.number(surface.size.width), .number(surface.size.height)],
            "mapped": .bool(surface.properties.mapped),
            "hidden": .bool(surface.properties.hidden),
            "children": .array(server.tree.children(of: id).map(surfaceJSON)),
        ]
    }
}
