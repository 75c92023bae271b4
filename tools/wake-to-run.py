#!/usr/bin/env python3
"""Where a benchmark client waits after its compositor writes to it: one `bench e2e` run
under the kernel's scheduler tracepoints (tracefs, as root), then, for each side, every
wakeup of its client by its server: on which CPU the client ran, whether it preempted the
server (the server was still runnable) or waited for it to sleep, and how long from the
wakeup to the client running.

    sudo tools/wake-to-run.py [BUILD_DIR] [-- bench e2e options]

BUILD_DIR defaults to .build/release; the options default to one client and one finger.
The figures are timings, so they move with the machine: compare runs made together.
"""
import os
import re
import statistics
import subprocess
import sys
import time

TRACING = "/sys/kernel/tracing"
EVENTS = ("sched/sched_waking", "sched/sched_switch")
LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def write(path, text):
    with open(os.path.join(TRACING, path), "w") as f:
        f.write(text)


def trace(build, options):
    """Runs the benchmark traced; returns the trace's lines and the pids of its processes."""
    if not os.path.isdir(TRACING):
        sys.exit(f"wake-to-run: no {TRACING} (tracefs), or not root")
    write("tracing_on", "0")
    write("trace", "")
    write("buffer_size_kb", "32768")
    write("events/enable", "0")
    for event in EVENTS:
        write(f"events/{event}/enable", "1")
    write("tracing_on", "1")
    bench = subprocess.Popen([os.path.join(build, "touch-router"), "bench", "e2e", *options],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pids = {}
    # The session, the floor and their clients are all up once the first round plays.
    time.sleep(1.2)
    for line in subprocess.run(["pgrep", "-af", "touch-router"], capture_output=True, text=True).stdout.splitlines():
        pid, command = line.split(None, 1)
        if " run " in command:
            pids["session"] = pid
        elif "bench-floor" in command:
            pids["floor"] = pid
        elif "/touchrouter/client-0" in command:
            pids["session's client"] = pid
        elif "/floor/client-0" in command:
            pids["floor's client"] = pid
    status = bench.wait()
    write("tracing_on", "0")
    with open(os.path.join(TRACING, "trace")) as f:
        lines = f.read().splitlines()
    write("events/enable", "0")
    if status != 0:
        sys.exit(f"wake-to-run: bench e2e failed ({status})")
    missing = {"session", "floor", "session's client", "floor's client"} - pids.keys()
    if missing:
        sys.exit(f"wake-to-run: did not find {', '.join(sorted(missing))} among the running processes")
    return lines, pids


def wakeups(lines, server, client):
    """(microseconds from waking to running, how the server left the CPU, same CPU) for each
    wakeup of `client` by `server`."""
    waking = None
    found = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        _, pid, cpu, stamp, event, rest = m.groups()
        if event == "sched_waking" and re.search(rf" pid={client} ", rest):
            waking = (float(stamp), pid, int(cpu))
        elif event == "sched_switch" and waking and re.search(rf"next_pid={client} ", rest):
            woken_at, waker, waker_cpu = waking
            waking = None
            if waker != server:
                continue
            prev_pid, prev_state = re.search(r"prev_pid=(\d+) .*prev_state=(\S+)", rest).groups()
            how = "preempted it" if prev_pid == server and prev_state.startswith("R") else \
                  "waited for it to sleep" if prev_pid == server else "ran after another task"
            found.append(((float(stamp) - woken_at) * 1e6, how, int(cpu) == waker_cpu))
    return found


def main():
    args = sys.argv[1:]
    options = ["--clients", "1", "--fingers", "1"]
    if "--" in args:
        options = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    build = args[0] if args else ".build/release"
    lines, pids = trace(build, options)
    for side, server in (("session", pids["session"]), ("floor", pids["floor"])):
        found = wakeups(lines, server, pids[f"{side}'s client"])
        if not found:
            print(f"{side}: no wakeups of its client traced")
            continue
        waits = sorted(w for w, _, _ in found)
        kept = waits[:int(len(waits) * 0.9)] or waits
        print(f"{side}: {len(found)} wakeups of its client, {sum(same for _, _, same in found)} on the server's CPU")
        for how in ("preempted it", "waited for it to sleep", "ran after another task"):
            times = [w for w, h, _ in found if h == how]
            if times:
                print(f"  {how:24} {len(times):6}   median {statistics.median(times):6.1f} µs")
        print(f"  waking to running: mean of the fastest 90% {sum(kept) / len(kept):.2f} µs, "
              f"p25 {waits[len(waits) // 4]:.0f}, p50 {waits[len(waits) // 2]:.0f}, p75 {waits[len(waits) * 3 // 4]:.0f} µs")


if __name__ == "__main__":
    main()
