import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import Testing

@testable import KeepEngines

/// How `-s`, `-m` and `-r` choose a server, a model and a role.
@Suite("Choosing a server, a model and a role")
struct ServerBookTests {
    private func book() throws -> ServerBook {
        let profiles = try Profiles(
            text: #"{"servers":{"claude":{"url":"https://api.anthropic.com/v1","protocol":"anthropic"}},"#
                + #""aliases":{"fast":"claude/haiku"},"roles":{"coder":{"system":"code","model":"fast"}}}"#)
        return ServerBook(
            profiles: profiles, carried: ServerProfile(name: "default", url: "http://127.0.0.1:8080/v1", model: "local")
        )
    }

    @Test("a missing default server is the one the old settings describe")
    func carried() throws {
        let book = try book()
        #expect(book.defaultServer?.url == "http://127.0.0.1:8080/v1")
        #expect(book.servers.map(\.name) == ["claude", "default"])
    }

    @Test("SERVER/MODEL and an alias choose the server and the model; a slash that names no server is a model")
    func models() throws {
        let book = try book()
        let slash = try book.choose(server: nil, model: "claude/opus", role: nil)
        #expect(slash.server.name == "claude" && slash.model == "opus" && slash.named)
        let alias = try book.choose(server: nil, model: "fast", role: nil)
        #expect(alias.server.name == "claude" && alias.model == "haiku")
        let whole = try book.choose(server: nil, model: "meta-llama/Llama-3", role: nil)
        #expect(whole.server.name == "default" && whole.model == "meta-llama/Llama-3" && !whole.named)
    }

    @Test("-s and -m naming different servers is refused; a role's model gives way to -s")
    func conflicts() throws {
        let book = try book()
        #expect(throws: ServerBook.Refusal.self) { try book.choose(server: "default", model: "claude/opus", role: nil) }
        let role = try book.choose(server: "default", model: nil, role: "coder")
        #expect(role.server.name == "default" && role.model == nil && role.role?.system == "code")
        let roleOnly = try book.choose(server: nil, model: nil, role: "coder")
        #expect(roleOnly.server.name == "claude" && roleOnly.model == "haiku")
    }

    @Test("an unknown server or role is refused, naming the ones there are")
    func unknown() throws {
        let book = try book()
        #expect(throws: ServerBook.Refusal.self) { try book.choose(server: "nope", model: nil, role: nil) }
        do {
            _ = try book.choose(server: nil, model: nil, role: "poet")
            Issue.record("an unknown role was accepted")
        } catch {
            #expect(error.message.contains("roles: coder"))
        }
    }
}
