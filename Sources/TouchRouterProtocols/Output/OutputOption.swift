import TouchRouterCore

extension OutputMode {
    /// `WxH[@Hz][,transform=T]`, as `touch-router run --output` takes it; the error says
    /// what was expected, naming the part that was wrong.
    public static func parse(option text: String) throws(OutputOptionError) -> OutputMode {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard var mode = OutputMode(parsing: String(parts[0])) else {
            throw OutputOptionError("--output \(text): expected WxH or WxH@Hz (1 to 16384 pixels, 1 to 1000 Hz), then ,transform=…; for example 1280x800@60,transform=90")
        }
        var seen: Set<Substring> = []
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0] == "transform" else {
                throw OutputOptionError("--output \(text): unknown setting '\(part.prefix(64))': expected transform=\(OutputTransform.names.joined(separator: "|"))")
            }
            guard seen.insert(pair[0]).inserted else { throw OutputOptionError("--output \(text): transform is given twice: expected it once") }
            guard let transform = OutputTransform(name: String(pair[1])) else {
                throw OutputOptionError("--output \(text): transform '\(pair[1].prefix(64))': expected one of \(OutputTransform.names.joined(separator: ", "))")
            }
            mode.transform = transform
        }
        return mode
    }
}

public struct OutputOptionError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
