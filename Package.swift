// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TouchRouter",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TouchRouterCore", targets: ["TouchRouterCore"]),
        .library(name: "TouchRouterReplay", targets: ["TouchRouterReplay"]),
        .library(name: "TouchRouterWayland", targets: ["TouchRouterWayland"]),
        .library(name: "TouchRouterLibseat", targets: ["TouchRouterLibseat"]),
        // The command: a small C launcher that answers `msg` itself and loads the rest of the
        // CLI, libTouchRouterCLI.so beside it, for every other command (README, "Control socket").
        .executable(name: "touch-router", targets: ["TouchRouterLauncher"]),
        .library(name: "TouchRouterCLI", type: .dynamic, targets: ["TouchRouterCLI"]),
        // The WLCS integration module: `wlcs .build/debug/libtouch-router-wlcs.so`.
        .library(name: "touch-router-wlcs", type: .dynamic, targets: ["TouchRouterWLCS"]),
        // `touch-router bench e2e`'s C programs (README, "bench e2e"): the benchmark client, the
        // raw libwayland floor server and the injector, on CWaylandProtocols' wayland-scanner output.
        .executable(name: "touch-router-bench-client", targets: ["touch-router-bench-client"]),
        .executable(name: "touch-router-bench-floor", targets: ["touch-router-bench-floor"]),
        .executable(name: "touch-router-bench-injector", targets: ["touch-router-bench-injector"]),
        // Preloaded into sway by `bench e2e --peer sway --present`: wlroots 0.15's headless
        // backend never answers presentation feedback (the file says why).
        .library(name: "touch-router-sway-present-fix", type: .dynamic, targets: ["touch-router-sway-present-fix"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // Routing model: geometry, surface tree, hit testing, focus, fallback chain, router.
        // Imports nothing but the standard library: no C, no Wayland, no Foundation.
        .target(name: "TouchRouterCore"),
        // Scene files, input scripts, trace formatting and deterministic stand-ins.
        .target(name: "TouchRouterReplay", dependencies: ["TouchRouterCore"]),
        // libwayland-server and libxkbcommon, linked through pkg-config (Debian: libwayland-dev, libxkbcommon-dev).
        .systemLibrary(
            name: "CWaylandServer", pkgConfig: "wayland-server",
            providers: [.apt(["libwayland-dev", "libxkbcommon-dev"])]),
        // The committed wayland-scanner output, once (meson-helpers/generate-protocols.sh): every
        // server and client header the C targets include, and each protocol's interface data,
        // the same for clients and servers. It links nothing: the data needs wayland-util.h
        // alone (Debian: libwayland-dev, in /usr/include); each product links its own side's library.
        .target(name: "CWaylandProtocols"),
        // The server side of the protocols' C and the small C functions Swift cannot do
        // without: variadic calls, interface addresses, container_of.
        .target(name: "CWaylandShim", dependencies: ["CWaylandServer", "CWaylandProtocols"], linkerSettings: [.linkedLibrary("wayland-server"), .linkedLibrary("xkbcommon")]),
        // xkbcommon alone (Debian: libxkbcommon-dev), for the configuration's key names.
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // The session's TOML configuration (README, "Configuration"): recognizers, bindings,
        // per-application policies and the keyboard, read into plain values.
        .target(name: "TouchRouterConfig", dependencies: ["TouchRouterCore", "CXKBCommon", .product(name: "TOMLKit", package: "TOMLKit")]),
        // pixman (Debian: libpixman-1-dev): each output's framebuffer composed in software.
        .systemLibrary(name: "CPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
        // libpng (Debian: libpng-dev), and the C function that calls it: its errors longjmp.
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(name: "CPNGShim", dependencies: ["CLibPNG"]),
        // libdrm (Debian: libdrm-dev): the drm backend's connectors, modes, dumb buffers and page flips.
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .target(name: "CDRMShim", dependencies: ["CDRM"]),
        // libudev (Debian: libudev-dev): the drm backend hears screens plugged in and out.
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // Per-event timelines recorded into HDR histograms per stage, kind and client, and the
        // slow events kept (README, "Timeline and `msg stats`"): the core stays dependency-free.
        .target(name: "TouchRouterStats", dependencies: ["TouchRouterCore", "TouchRouterReplay", .product(name: "Histogram", package: "hdrhistogram-swift")]),
        // The CPU's timestamp counter, read by the timeline's clock (CounterClock.swift).
        .target(name: "CTimestampCounter"),
        // The protocol layer: the display, protocol objects and listeners, one folder and state
        // object per protocol family, and the handler protocols through which each family asks
        // the server for what it needs. It knows the core's identifiers and geometry, never the
        // router, and nothing of the server but its handler protocols (docs/architecture.md).
        .target(name: "TouchRouterProtocols", dependencies: ["TouchRouterCore", "TouchRouterConfig", "CWaylandShim"]),
        // The server: owns the router, the tree, the outputs and the protocol states, conforms to
        // the families' handlers (Handlers/), delivers input, and holds the kiosk policy and the
        // control socket. It re-exports TouchRouterProtocols.
        .target(name: "TouchRouterWayland", dependencies: ["TouchRouterCore", "TouchRouterReplay", "TouchRouterConfig", "TouchRouterStats", "TouchRouterProtocols", "CWaylandShim", "CPixman", "CPNGShim", "CTimestampCounter"]),
        // The drm backend: each connected screen an output, composed frames flipped at vblank.
        .target(name: "TouchRouterDRM", dependencies: ["TouchRouterCore", "TouchRouterWayland", "CDRM", "CDRMShim", "CUdev"]),
        // xcb with its composite, xfixes and res extensions (Debian: libxcb1-dev,
        // libxcb-composite0-dev, libxcb-xfixes0-dev, libxcb-res0-dev), for the X11 window manager.
        .systemLibrary(name: "CXCB", pkgConfig: "xcb", providers: [.apt(["libxcb1-dev", "libxcb-composite0-dev", "libxcb-xfixes0-dev", "libxcb-res0-dev"])]),
        // Xwayland in the session (README, "X11 apps"): its display and process, and the X11
        // window manager, which reaches the server only through XWaylandHandler.
        .target(name: "TouchRouterXWayland", dependencies: ["TouchRouterCore", "TouchRouterConfig", "TouchRouterProtocols", "TouchRouterWayland", "CXCB"]),
        // libwayland-client (Debian: libwayland-dev) and CWaylandProtocols' xdg-shell client
        // header, with the C functions Swift cannot do without.
        .target(name: "CWaylandClientShim", dependencies: ["CWaylandProtocols"], linkerSettings: [.linkedLibrary("wayland-client")]),
        // The wayland backend of `touch-router run`: each output a window on a host
        // compositor, its seat the session's input.
        .target(name: "TouchRouterNested", dependencies: ["TouchRouterCore", "TouchRouterWayland", "CWaylandClientShim"]),
        // libinput, through pkg-config (Debian: libinput-dev).
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev"])]),
        // libseat (Debian: libseat-dev; seatd or logind at run time), and its log handler's C side.
        .target(name: "CLibseat", linkerSettings: [.linkedLibrary("seat")]),
        // A seat taken through libseat: device nodes opened without root, VT switches.
        .target(name: "TouchRouterLibseat", dependencies: ["CLibseat"]),
        // Kernel input devices read through libinput, translated into the core's events.
        .target(name: "TouchRouterLibinput", dependencies: ["TouchRouterCore", "CLibinput", "TouchRouterLibseat"]),
        // wlcs/display_server.h's tables and the constant WLCS looks up, calling into
        // TouchRouterWLCS (Debian: wlcs, libwayland-dev).
        .target(name: "CWLCSIntegration", linkerSettings: [.linkedLibrary("wayland-client")]),
        .target(name: "TouchRouterWLCS", dependencies: ["TouchRouterCore", "TouchRouterConfig", "TouchRouterWayland", "CWLCSIntegration"]),
        // The backends of `touch-router run` wired to the session: drm, wayland (nested) and
        // headless displays, libinput and the libseat seat, every input through one InputSource.
        .target(name: "TouchRouterBackends", dependencies: ["TouchRouterCore", "TouchRouterConfig", "TouchRouterReplay", "TouchRouterWayland", "TouchRouterXWayland", "TouchRouterLibinput", "TouchRouterDRM", "TouchRouterNested", "TouchRouterLibseat"]),
        // The C grid floor `bench hit-test` runs beside the index on the same scene and points
        // (Sources/Benchmarks/c-grid-floor runs it alone).
        .target(name: "CGridFloor", cSettings: [.unsafeFlags(["-O2"])]),
        // Synthetic scenes and the hit-test measurement loop shared by the CLI and the benchmarks.
        .target(name: "TouchRouterBench", dependencies: ["TouchRouterCore", "TouchRouterReplay", "CGridFloor"]),
        // Every command of `touch-router` (ArgumentParser), entered through touch_router_cli_main.
        .target(
            name: "TouchRouterCLI",
            dependencies: [
                "TouchRouterCore", "TouchRouterReplay", "TouchRouterBench", "TouchRouterConfig", "TouchRouterWayland", "TouchRouterLibinput", "TouchRouterDRM",
                "TouchRouterNested", "TouchRouterBackends",
                "TouchRouterLibseat", "TouchRouterStats",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            exclude: ["Samples"]
        ),
        // libc alone, so that a script's `touch-router msg` costs the start of a small process,
        // not the loading of the session's fifty libraries.
        .executableTarget(name: "TouchRouterLauncher", linkerSettings: [.linkedLibrary("dl"), .unsafeFlags(["-static-stdlib", "-nostartfiles"])]),
        .executableTarget(
            name: "touch-router-bench-client", dependencies: ["CWaylandProtocols"], path: "Sources/Benchmarks/bench-client",
            cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("wayland-client")]),
        .executableTarget(
            name: "touch-router-bench-floor", dependencies: ["CWaylandProtocols"], path: "Sources/Benchmarks/bench-floor",
            cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("wayland-server")]),
        // Pointer motion and keys through zwlr_virtual_pointer_v1 and zwp_virtual_keyboard_v1 (`bench e2e --peer sway`).
        .executableTarget(
            name: "touch-router-bench-injector", dependencies: ["CWaylandProtocols"], path: "Sources/Benchmarks/bench-injector",
            cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("wayland-client"), .linkedLibrary("xkbcommon")]),
        .target(
            name: "touch-router-sway-present-fix", path: "Sources/Benchmarks/sway-present-fix",
            cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("wayland-server")]),
        .executableTarget(
            name: "RoutingBenchmarks",
            dependencies: [
                "TouchRouterCore", "TouchRouterReplay", "TouchRouterBench", "TouchRouterStats",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Sources/Benchmarks/RoutingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .testTarget(name: "TouchRouterCoreTests", dependencies: ["TouchRouterCore", "TouchRouterReplay"]),
        .testTarget(name: "TouchRouterReplayTests", dependencies: ["TouchRouterCore", "TouchRouterReplay", "TouchRouterBench"], exclude: ["Recordings"]),
        .testTarget(name: "TouchRouterStatsTests", dependencies: ["TouchRouterCore", "TouchRouterReplay", "TouchRouterBench", "TouchRouterStats",
                                                           .product(name: "Histogram", package: "hdrhistogram-swift")]),
        .testTarget(name: "TouchRouterConfigTests", dependencies: ["TouchRouterCore", "TouchRouterConfig"]),
        .testTarget(name: "TouchRouterLibseatTests", dependencies: ["TouchRouterLibseat", "TouchRouterLibinput", "TouchRouterCore"]),
        .testTarget(name: "TouchRouterWaylandTests", dependencies: ["TouchRouterCore", "TouchRouterConfig", "TouchRouterWayland", "TouchRouterProtocols", "TouchRouterXWayland", "TouchRouterDRM", "CWaylandShim", "CWaylandClientShim"]),
        // Runs the built `touch-router` as a person would.
        .testTarget(name: "TouchRouterCLITests", dependencies: ["TouchRouterLauncher", "TouchRouterCLI", "touch-router-bench-client", "touch-router-bench-floor", "touch-router-bench-injector"], exclude: ["Clients"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (issue 10), only when TOUCH_ROUTER_FUZZ is set, so ordinary builds
// never see them. `.ci/fuzz` builds them into .build-fuzz with `-sanitize=fuzzer` and runs
// each for a bounded time; see Sources/Fuzz/README.md.
if Context.environment["TOUCH_ROUTER_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzScene", ["TouchRouterCore", "TouchRouterReplay"]),
        ("FuzzScript", ["TouchRouterCore", "TouchRouterReplay"]),
        ("FuzzControlRequest", ["TouchRouterWayland"]),
        ("FuzzProtocol", ["TouchRouterCore", "TouchRouterConfig", "TouchRouterWayland", "CWaylandShim"]),
        ("FuzzConfiguration", ["TouchRouterConfig"]),
        ("FuzzXWM", ["TouchRouterWayland", "TouchRouterXWayland"]),
    ]
    // The benchmarks' build-tool plugin would be built with the sanitizer too, and cannot be.
    package.targets.removeAll { $0.name == "RoutingBenchmarks" }
    package.targets.append(.target(name: "FuzzDriver", path: "Sources/Fuzz/FuzzDriver"))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies + ["FuzzDriver"], path: "Sources/Fuzz/\(target.name)"))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
