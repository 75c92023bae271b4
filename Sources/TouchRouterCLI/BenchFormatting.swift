import TouchRouterBench

enum BenchFormatting {
    static func json(_ reports: [HitTestBenchmark.Report]) -> String {
        func number(_ value: Double) -> String { String(format: value, digits: 2) }
        func sets(_ values: [String: HitTestBenchmark.Percentiles]) -> String {
            "{" + values.keys.sorted().map { key in
                let p = values[key]!
                return "\"\(key)\":{\"median_ns\":\(number(p.medianNanoseconds)),\"p50_ns\":\(number(p.p50Nanoseconds)),\"p99_ns\":\(number(p.p99Nanoseconds)),\"queries\":\(p.queries)}"
            }.joined(separator: ",") + "}"
        }
        func move(_ p: HitTestBenchmark.Percentiles) -> String {
            "{\"median_ns\":\(number(p.medianNanoseconds)),\"p99_ns\":\(number(p.p99Nanoseconds)),\"moves\":\(p.queries)}"
        }
        let rows = reports.map { r in
            "{\"scene\":\"\(r.label)\",\"leaves\":\(r.leaves),\"toplevels\":\(r.toplevels),\"surfaces\":\(r.surfaces),\"seed\":\(r.seed),"
                + "\"cell_px\":\(r.cellSize),\"build_ms\":\(number(r.buildMilliseconds)),"
                + "\"index\":\(sets(r.index)),\"reference\":\(sets(r.reference)),"
                + "\"miss_points_on_output\":\(r.missPointsOnOutput),"
                + "\"answer_cells\":{\"cached\":\(r.answerCells),\"mixed\":\(r.mixedAnswerCells)},"
                + "\"move_window\":{\"random\":\(move(r.moveRandom)),\"drag\":\(move(r.moveDrag))},\"agreed\":\(r.agreed),"
                + "\"c_grid\":\(r.floor.map { "{\"windows\":\($0.windows),\"c_grid_random_median_ns\":\(number($0.floorMedianNanoseconds)),\"index_random_median_ns\":\(number($0.indexMedianNanoseconds)),\"ratio\":\(String(format: $0.ratio, digits: 3))}" } ?? "null")}"
        }
        return rows.count == 1 ? rows[0] : "[" + rows.joined(separator: ",\n") + "]"
    }

    static let targetLeaves = 10_000, targetNanoseconds = 15.0, targetRatio = 0.7

    static func table(_ reports: [HitTestBenchmark.Report]) -> String {
        var lines: [String] = []
        let header = ["leaves", "windows", "structure", "points", "median ns", "p50 ns", "p99 ns"]
        var rows: [[String]] = []
        for r in reports {
            for structure in ["index", "reference"] {
                let values = structure == "index" ? r.index : r.reference
                for set in values.keys.sorted().reversed() {
                    let p = values[set]!
                    rows.append([String(r.leaves), String(r.toplevels), structure, set,
                                 String(format: p.medianNanoseconds, digits: 1), String(format: p.p50Nanoseconds, digits: 1), String(format: p.p99Nanoseconds, digits: 1)])
                }
            }
        }
        lines += align([header] + rows)
        lines.append("")
        let moveHeader = ["leaves", "cell px", "build ms", "move (random) median ns", "p99 ns", "move (drag ≤8px) median ns", "p99 ns", "miss points", "mixed answer cells", "agreed"]
        let moveRows = reports.map { r in
            [String(r.leaves), String(r.cellSize), String(format: r.buildMilliseconds, digits: 2),
             String(format: r.moveRandom.medianNanoseconds, digits: 0), String(format: r.moveRandom.p99Nanoseconds, digits: 0),
             String(format: r.moveDrag.medianNanoseconds, digits: 0), String(format: r.moveDrag.p99Nanoseconds, digits: 0),
             String(r.missPointsOnOutput),
             r.answerCells == 0 ? "-" : String(format: 100 * Double(r.mixedAnswerCells) / Double(r.answerCells), digits: 1) + "%",
             r.agreed ? "yes" : "NO"]
        }
        lines += align([moveHeader] + moveRows)
        for r in reports {
            guard let floor = r.floor else { continue }
            lines.append("")
            lines.append("\(r.leaves) leaves, random points, a run of each in turn: index \(String(format: floor.indexMedianNanoseconds, digits: 1)) ns, "
                + "C grid floor (\(floor.windows) window rectangles, 128-px cells) \(String(format: floor.floorMedianNanoseconds, digits: 1)) ns: \(String(format: floor.ratio, digits: 2))×")
            if r.label == "synthetic", r.leaves == targetLeaves {
                let met = floor.indexMedianNanoseconds <= targetNanoseconds && floor.ratio <= targetRatio
                lines.append("target (issue 27): ≤ \(String(format: targetNanoseconds, digits: 0)) ns and ≤ \(targetRatio)× the C grid at \(targetLeaves) leaves: \(met ? "met" : "not met")")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func align(_ rows: [[String]]) -> [String] {
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == 0 ? cell.padding(to: widths[i]) : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }
    }
}

extension String {
    init(format value: Double, digits: Int) {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if digits == 0 {
            self = String(Int64(rounded))
        } else {
            let whole = Int64(rounded.rounded(.towardZero))
            var fraction = String(Int64((abs(rounded - Double(whole)) * scale).rounded()))
            fraction = String(repeating: "0", count: Swift.max(0, digits - fraction.count)) + fraction
            self = "\(rounded < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
        }
    }

    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
