#!/usr/bin/python3
"""An HDR percentile plot of latency series, as `touch-router bench route --plot` draws it.

    plot-latency.py SERIES.json OUT.svg

SERIES.json: {"title": "...", "unit": "ns", "series": {"name": [[percentile, value], ...], ...}},
percentiles from 0 to 100 (exclusive). The x axis is 1/(1-p) on a log scale, labelled with
the percentiles (50%, 90%, 99%, ...), as HdrHistogram's plotter draws it; the y axis is the
latency in microseconds. Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("svg")
# Text as text, not paths: the SVG keeps its labels searchable.
matplotlib.rcParams["svg.fonttype"] = "none"
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print("usage: plot-latency.py SERIES.json OUT.svg", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        data = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0}[data.get("unit", "ns")]
    figure, axes = plt.subplots(figsize=(9, 5.5))
    highest = 1.0
    for name, points in data["series"].items():
        points = [(p, v) for p, v in points if p < 100]
        if not points:
            continue
        xs = [1.0 / (1.0 - p / 100.0) for p, _ in points]
        ys = [v * scale for _, v in points]
        highest = max(highest, xs[-1])
        axes.step(xs, ys, where="post", label=name)
    axes.set_xscale("log")
    ticks, labels, nines = [], [], 0
    while 10 ** nines <= highest * 1.0001:
        x = 10 ** nines
        ticks.append(x)
        labels.append("0%" if nines == 0 else f"{100 - 100 / x:.{max(0, nines - 2)}f}%")
        nines += 1
    if 2 <= highest:
        ticks.insert(1, 2)
        labels.insert(1, "50%")
    axes.set_xticks(ticks)
    axes.set_xticklabels(labels)
    axes.minorticks_off()
    axes.set_xlabel("percentile")
    axes.set_ylabel("latency (µs)")
    axes.set_ylim(bottom=0)
    axes.grid(True, which="major", alpha=0.3)
    axes.set_title(data.get("title", "latency by percentile"), fontsize=10)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(argv[2], format="svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
