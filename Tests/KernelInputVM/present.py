#!/usr/bin/env python3
"""Touch to present in the VM (guest/present.sh), on the host: for each compositor, the
client's touch events are matched by order to uinput-devices' send times, and each is
measured to the presentation of the commit that answered it (or, for a commit superseded
before its frame, of the next presented commit, which shows it too). A compositor without
wp_presentation (cage 0.1.4) is measured to the frame callback instead, a lower bound.

    present.py DIR NAME[:report]...   reads DIR/client-NAME.txt and DIR/sent-NAME.txt

Prints a table (ms) and exits 1 unless every compositor received every report sent and
presented an answer to each; one named NAME:report is printed, not checked."""
import sys

TOUCH = {"touch-down", "touch-motion", "touch-up"}


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0


def measure(directory, name):
    events, commits, by = [], [], "feedback"
    with open(f"{directory}/client-{name}.txt") as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "#":
                by = next((word.split("=", 1)[1] for word in fields if word.startswith("presented-by=")), by)
            if not fields or fields[0] == "#":
                continue
            if fields[0] == "commit":
                _, _, committed, presented, refresh, flags, first, last = fields
                commits.append((int(committed), int(presented), int(refresh), int(flags), int(first), int(last)))
            else:
                events.append(fields[0])
    with open(f"{directory}/sent-{name}.txt") as f:
        sent = [int(line.split()[1]) for line in f if line.strip()]
    shown, carried, flags_seen = {}, [], set()
    for committed, presented, refresh, flags, first, last in commits:
        carried += [(index, committed) for index in range(first, last + 1)]
        if presented < 0:
            continue
        flags_seen.add(flags)
        period = refresh if refresh > 0 else 16_666_667
        for index, own in carried:
            shown[index] = (presented, presented - own > period + 1_000_000)
        carried = []
    touches = [index for index, kind in enumerate(events) if kind in TOUCH]
    latencies, missed = [], 0
    for index, at in zip(touches, sent):
        if index in shown:
            latencies.append(shown[index][0] - at)
            missed += shown[index][1]
    return {"sent": len(sent), "received": len(touches), "answered": len(latencies), "commits": len(commits),
            "superseded": sum(1 for c in commits if c[1] == -1), "missed": missed, "latencies": latencies,
            "refresh": max((c[2] for c in commits), default=0), "flags": sorted(flags_seen), "by": by}


def main(argv):
    directory, names = argv[1], argv[2:]
    ok = True
    print(f"{'':12} {'sent':>5} {'received':>8} {'answered':>8} {'commits':>7} {'superseded':>10} {'missed':>6} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'p99.9 ms':>8} {'max ms':>7}  refresh, flags")
    for argument in names:
        name, _, mode = argument.partition(":")
        m = measure(directory, name)
        values = m["latencies"]
        row = [percentile(values, p) / 1e6 for p in (50, 99, 99.9)] + [max(values, default=0) / 1e6]
        print(f"{name:12} {m['sent']:5} {m['received']:8} {m['answered']:8} {m['commits']:7} {m['superseded']:10} {m['missed']:6} "
              + " ".join(f"{v:7.2f}" for v in row)
              + (f"  {m['refresh'] / 1e6:.3f} ms, {m['flags']}" if m["by"] == "feedback" else "  no wp_presentation: frame callbacks, a lower bound"))
        if m["sent"] == 0 or m["received"] != m["sent"] or m["answered"] != m["sent"]:
            print(f"{name}: {m['sent']} reports sent, {m['received']} received, {m['answered']} answers presented"
                  + (" (reported, not checked)" if mode == "report" else ""))
            ok = ok and mode == "report"
        if any(v < 0 for v in values):
            print(f"{name}: {sum(1 for v in values if v < 0)} presented before they were sent: the clocks differ")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
