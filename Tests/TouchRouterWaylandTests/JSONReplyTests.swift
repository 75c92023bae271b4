import Foundation
import Testing
import TouchRouterReplay
import TouchRouterWayland

/// The control socket's JSON encoder (Control/JSONReply.swift): the text it writes, which
/// must be what the replies said when they were written by hand, and what JSON parsers read.
@Suite("The control socket's JSON encoder")
struct JSONReplyTests {
    /// What Foundation reads back from the text, to be sure it is JSON.
    private func parsed(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test("quotes, backslashes and the short escapes")
    func shortEscapes() {
        #expect(JSONValue.string("").json == "\"\"")
        #expect(JSONValue.string("plain text").json == "\"plain text\"")
        #expect(JSONValue.string("say \"hi\"").json == #""say \"hi\"""#)
        #expect(JSONValue.string(#"C:\dir\"#).json == #""C:\\dir\\""#)
        #expect(JSONValue.string("a\nb\rc\td").json == #""a\nb\rc\td""#)
        #expect(JSONValue.string("\\\"").json == #""\\\"""#)
        #expect(JSONValue.string("/").json == "\"/\"")
    }

    @Test("every control character U+0000–U+001F is escaped, and nothing else below U+0080 is")
    func controlCharacters() {
        for value in UInt32(0)...0x7F {
            let scalar = Unicode.Scalar(value)!
            let text = String(scalar)
            let encoded = JSONValue.string(text).json
            let expected: String
            switch value {
            case 0x0A: expected = #""\n""#
            case 0x0D: expected = #""\r""#
            case 0x09: expected = #""\t""#
            case 0x22: expected = #""\"""#
            case 0x5C: expected = #""\\""#
            case 0..<0x20: expected = "\"\\u00" + (value < 0x10 ? "0" : "1") + String(value & 0xF, radix: 16) + "\""
            default: expected = "\"" + text + "\""
            }
            #expect(encoded == expected, "U+\(String(value, radix: 16))")
            #expect(parsed(encoded) as? String == text, "U+\(String(value, radix: 16))")
        }
        #expect(JSONValue.string("\u{0}\u{1}\u{1b}[0m\u{1f}").json == #""\u0000\u0001\u001b[0m\u001f""#)
    }

    @Test("non-ASCII is written as UTF-8, not escaped; bytes that were not UTF-8 arrive as U+FFFD")
    func nonASCII() {
        #expect(JSONValue.string("café ökrán 😀 \u{2028} \u{7f}").json == "\"café ökrán 😀 \u{2028} \u{7f}\"")
        // A request line is decoded as ControlServer does: what is not UTF-8 is replaced.
        let line = String(decoding: [0x61, 0xFF, 0xFE, 0x22, 0xC3, 0xA9, 0xE2, 0x82], as: UTF8.self)
        let encoded = JSONValue.string(line).json
        #expect(encoded == "\"a\u{FFFD}\u{FFFD}\\\"é\u{FFFD}\"")
        #expect(String(validating: Array(encoded.utf8), as: UTF8.self) != nil)
        #expect(parsed(encoded) as? String == line)
    }

    @Test("the string escapes are the trace's (jsonString), for every kind of string")
    func sameAsTheTrace() {
        var samples = ["", "a", "\"", "\\", "tab\there", "\u{0}", "\u{1f}x", "é\u{1}é", "😀\"😀", String(repeating: "\\\"\n", count: 100)]
        // Mixed strings: control characters, ASCII and Latin, a few scalars each.
        for i in 0..<200 {
            var text = String.UnicodeScalarView()
            for j in 0..<(i % 17) {
                let value: UInt32 = UInt32((j * 37 + i * 11) % 0x250)
                if let scalar = Unicode.Scalar(value) { text.append(scalar) }
            }
            samples.append(String(text))
        }
        for text in samples {
            #expect(JSONValue.string(text).json == jsonString(text), "\(text.debugDescription)")
        }
    }

    @Test("integers, negative ones and the ends of Int64")
    func integers() {
        #expect(JSONValue.int(0).json == "0")
        #expect(JSONValue.int(-1).json == "-1")
        #expect(JSONValue.int(Int64.max).json == "9223372036854775807")
        #expect(JSONValue.int(Int64.min).json == "-9223372036854775808")
        #expect(JSONValue.number(UInt32.max).json == "4294967295")
        #expect(JSONValue.number(Int32.min).json == "-2147483648")
        #expect(JSONValue.number(42 as Int).json == "42")
    }

    @Test("doubles as the control socket printed them: whole numbers without a fraction")
    func doubles() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (10, "10"), (-5, "-5"), (68.5, "68.5"), (28.25, "28.25"), (-7.125, "-7.125"),
            (0.1, "0.1"), (1.0 / 3, "0.3333333333333333"), (2.5, "2.5"), (1e-7, "1e-07"),
            (999_999_999_999_999, "999999999999999"), (1e15, "1000000000000000.0"), (-1e15, "-1000000000000000.0"), (1e16, "1e+16"), (1.5e300, "1.5e+300"),
        ]
        for (value, text) in cases {
            #expect(JSONValue.double(value).json == text, "\(value)")
            #expect(JSONValue.double(value).json == jsonNumber(value), "\(value)")
            #expect((parsed(text) as? NSNumber)?.doubleValue == value, "\(value)")
        }
        // JSON has no word for these: null rather than text no parser reads.
        #expect(JSONValue.double(.nan).json == "null")
        #expect(JSONValue.double(.infinity).json == "null")
        #expect(JSONValue.double(-.infinity).json == "null")
        #expect(JSONValue.pair(1.5, -2).json == "[1.5,-2]")
    }

    @Test("null, booleans, nested arrays and objects, members in the order written")
    func nesting() {
        #expect(JSONValue.null.json == "null")
        #expect(JSONValue.bool(true).json == "true")
        #expect(JSONValue.bool(false).json == "false")
        #expect(JSONValue.array([]).json == "[]")
        #expect(JSONValue.object([]).json == "{}")
        let value: JSONValue = [
            "z": 1, "a": [1, [2, [3, []]], ["k": nil]], "m": ["inner": ["deep": "x\"y"], "list": [true, false, 1.5]],
            "quoted \"key\"\n": "v",
        ]
        let text = value.json
        #expect(text == #"{"z":1,"a":[1,[2,[3,[]]],{"k":null}],"m":{"inner":{"deep":"x\"y"},"list":[true,false,1.5]},"quoted \"key\"\n":"v"}"#)
        let object = parsed(text) as? [String: Any]
        #expect(object?["quoted \"key\"\n"] as? String == "v")
        #expect(JSONValue.optional(nil as Int?) { .number($0) } == .null)
        #expect(JSONValue.optional(3 as Int?) { .number($0) }.json == "3")
        #expect(JSONValue.verbatim("{\"made\":\"elsewhere\"}").json == "{\"made\":\"elsewhere\"}")
        #expect(JSONValue.array([.verbatim("{}"), .verbatim("[1]")]).json == "[{},[1]]")
    }

    @Test("replies: ok with members in order, failures, merged objects and members made in parts")
    func replies() {
        #expect(JSONReply.ok() == #"{"ok":true}"#)
        #expect(JSONReply.ok(["tracing": true]) == #"{"ok":true,"tracing":true}"#)
        #expect(JSONReply.ok(["surface": nil, "argb": nil]) == #"{"ok":true,"surface":null,"argb":null}"#)
        #expect(JSONReply.ok(["surface": ["id": 2, "local": .pair(68.5, 28.25)], "argb": "0xff536368"])
            == #"{"ok":true,"surface":{"id":2,"local":[68.5,28.25]},"argb":"0xff536368"}"#)
        #expect(JSONReply.failure("unknown request '\u{1}\\\"': expected tree") == #"{"ok":false,"error":"unknown request '\u0001\\\"': expected tree"}"#)
        #expect(JSONReply.ok(merging: #"{"unit":"ns","events":3}"#) == #"{"ok":true,"unit":"ns","events":3}"#)
        #expect(JSONReply.ok(merging: "{}") == #"{"ok":true}"#)
        #expect(JSONReply.ok(members: []) == #"{"ok":true}"#)
        #expect(JSONReply.ok(members: [.init(key: "frames", value: 10), .init(key: "log", value: "/tmp/a b\"c")])
            == #"{"ok":true,"frames":10,"log":"/tmp/a b\"c"}"#)
        for reply in [JSONReply.ok(["a": [1, 2], "b": ["c": "d"]]), JSONReply.failure("\u{0}\u{1f}é"), JSONReply.ok(merging: #"{"x":[]}"#)] {
            #expect(parsed(reply) is [String: Any], "\(reply)")
        }
    }
}
