import Testing
import TouchRouterConfig

@Suite("Privilege lists, as grant-socket and run --grant read them")
struct PrivilegeListTests {
    @Test("comma-separated names read into their privileges; a name given twice counts once")
    func reads() throws {
        #expect(try Privilege.parseList("virtual-input") == [.virtualInput])
        #expect(try Privilege.parseList("virtual-input,input-method,layer-shell,foreign-toplevel,session-lock,screen-capture,output-power") == Set(Privilege.allCases))
        #expect(try Privilege.parseList("layer-shell,layer-shell") == [.layerShell])
        #expect(Privilege.sortedNames([.foreignToplevel, .virtualInput]) == ["virtual-input", "foreign-toplevel"])
        #expect(Privilege.names == "virtual-input, input-method, layer-shell, foreign-toplevel, session-lock, screen-capture, output-power")
    }

    @Test("an unknown name is an error naming it and the known ones; so are an empty list and an empty name", arguments: [
        ("virtual-input,keyboard", "'keyboard' is not a privilege: expected one or more of virtual-input, input-method, layer-shell, foreign-toplevel, session-lock, screen-capture, output-power, separated by commas"),
        ("Virtual-Input", "'Virtual-Input' is not a privilege"),
        ("virtual_input", "'virtual_input' is not a privilege"),
        ("", "no privilege named: expected one or more of virtual-input, input-method, layer-shell, foreign-toplevel, session-lock, screen-capture, output-power"),
        ("virtual-input,,layer-shell", "'virtual-input,,layer-shell' has an empty name between commas"),
        ("layer-shell,", "'layer-shell,' has an empty name between commas"),
        (",", "',' has an empty name between commas"),
    ])
    func refuses(text: String, message: String) {
        do {
            let privileges = try Privilege.parseList(text)
            Issue.record("'\(text)' was read as \(privileges)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }

    @Test("each privilege's programs are its [privileges] key's")
    func programs() throws {
        let configuration = try ServerConfiguration.parse("""
            [privileges]
            virtual-input = ["a"]
            input-method = ["b"]
            layer-shell = ["c"]
            foreign-toplevel = ["d"]
            session-lock = ["e"]
            screen-capture = ["f"]
            output-power = ["g"]
            """, file: "p.toml")
        let settings = configuration.privileges
        #expect(Privilege.allCases.map { settings.programs(for: $0) } == [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]])
        #expect(try ServerConfiguration.parse("[privileges]\n", file: "p.toml").privileges.programs(for: .sessionLock).isEmpty)
    }
}
