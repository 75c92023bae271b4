import Foundation

/// `bench route --compare A.json B.json` (and `bench hit-test --compare`): two `--json`
/// outputs of the same command, before and after, as a table of every numeric figure both
/// have, by its path to the leaf, with the ratio B/A.
enum BenchComparison {
    enum Command {
        case route, hitTest, e2e

        var invocation: String {
            switch self {
            case .route: "touch-router bench route --json"
            case .hitTest: "touch-router bench hit-test --json"
            case .e2e: "touch-router bench e2e --json"
            }
        }

        /// What each run (one object) must hold, and the key that tells runs apart.
        var shape: String {
            switch self {
            case .route: "an object with a number \"leaves\" and an object \"fingers\" or \"recording\", or an array of them"
            case .hitTest: "an object with a string \"scene\", a number \"leaves\" and an object \"index\", or an array of them"
            case .e2e: "an object with \"bench\": \"e2e\" and an object \"workload\", or an array of them"
            }
        }

        func runName(_ object: [String: JSONValue]) -> String? {
            if self == .e2e {
                guard case .string("e2e")? = object["bench"], case .object(let workload)? = object["workload"] else { return nil }
                var name = "e2e"
                for key in ["clients", "fingers", "rate"] { if case .number(let n)? = workload[key] { name += " \(key) \(Int(n))" } }
                return name
            }
            guard case .number(let leaves)? = object["leaves"] else { return nil }
            switch self {
            case .route:
                if case .object? = object["fingers"] { return "\(Int(leaves)) leaves" }
                if case .object? = object["recording"] { return "\(Int(leaves)) leaves, recording" }
                return nil
            case .e2e:
                return nil
            case .hitTest:
                guard case .string(let scene)? = object["scene"], case .object? = object["index"] else { return nil }
                return "\(scene), \(Int(leaves)) leaves"
            }
        }
    }

    indirect enum JSONValue: Decodable {
        case number(Double), string(String), bool(Bool), null
        case array([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
            else { self = .object(try container.decode([String: JSONValue].self)) }
        }
    }

    /// Each run's name and its numeric leaves by path, in the file's run order.
    static func read(_ path: String, command: Command) throws -> [(run: String, figures: [String: Double])] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "\(path): error: cannot read the file to compare (no such file, or no permission)")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Failure(description: "\(path): error: not JSON; expected the output of `\(command.invocation)`")
        }
        let objects: [JSONValue]
        if case .array(let array) = value { objects = array } else { objects = [value] }
        var runs: [(run: String, figures: [String: Double])] = []
        for (index, object) in objects.enumerated() {
            guard case .object(let fields) = object, let name = command.runName(fields) else {
                throw Failure(description: "\(path): error: run \(index + 1) is not a run of `\(command.invocation)`: expected \(command.shape)")
            }
            var figures: [String: Double] = [:]
            flatten(object, path: "", into: &figures)
            runs.append((name, figures))
        }
        if runs.isEmpty { throw Failure(description: "\(path): error: no runs; expected \(command.shape)") }
        return runs
    }

    private static func flatten(_ value: JSONValue, path: String, into figures: inout [String: Double]) {
        switch value {
        case .number(let number): figures[path] = number
        case .object(let fields): for (key, field) in fields { flatten(field, path: path.isEmpty ? key : "\(path).\(key)", into: &figures) }
        case .array(let items): for (i, item) in items.enumerated() { flatten(item, path: "\(path)[\(i)]", into: &figures) }
        case .string, .bool, .null: break
        }
    }

    static func table(_ pathA: String, _ pathB: String, command: Command) throws -> String {
        let a = try read(pathA, command: command), b = try read(pathB, command: command)
        guard a.map(\.run) == b.map(\.run) else {
            throw Failure(description: "\(pathB): error: expected the same runs as \(pathA) (\(a.map(\.run).joined(separator: "; "))), found \(b.map(\.run).joined(separator: "; "))")
        }
        var rows: [[String]] = [["run", "figure", "A", "B", "B/A"]]
        for (runA, runB) in zip(a, b) {
            // "leaves" names the run: not a figure.
            for key in runA.figures.keys.sorted() where key != "leaves" {
                guard let before = runA.figures[key], let after = runB.figures[key] else { continue }
                rows.append([runA.run, key, number(before), number(after), before == 0 ? (after == 0 ? "1.00" : "-") : String(format: after / before, digits: 2)])
            }
        }
        guard rows.count > 1 else {
            throw Failure(description: "\(pathB): error: no figure in common with \(pathA); expected the output of `\(command.invocation)`")
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            row.enumerated().map { i, cell in i < 2 ? cell.padding(to: widths[i]) : cell.leftPadded(to: widths[i]) }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n(A: \(pathA), B: \(pathB))"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: value, digits: 2)
    }
}
