import Foundation
import Testing

// In the kept-data suite: it makes the shared data key, which one test there deletes.
extension KeptDataTests {
    @Test("a window read from the model list is kept across launches: asked once, shown by keep servers with its age")
    func windowKeptAcrossLaunches() async throws {
        let wire = ContextBudgetEndToEndTests.cases[0]
        let server = try LoopbackServer(
            LoopbackServer.describing(
                [wire.describedAt: wire.description], wire.handler([ContextBudgetEndToEndTests.answer])))
        let sandbox = try Sandbox(keyring: true)
        try await sandbox.useRemote(server)
        var id = try await sandbox.ask("first")
        for question in ["second", "third", "fourth", "fifth"] { id = try await sandbox.ask(question, chat: id) }
        #expect(server.requests.filter { $0.method == "GET" }.count == 1, "asked once, then kept: \(server.requests)")
        let texts = wire.texts(try #require(server.requests.last?.json))
        #expect(!texts.contains("first") && texts.last == "fifth", "the kept window still trims: \(texts)")

        let listed = try await sandbox.run("servers", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let context = try #require((report["servers"] as? [[String: Any]])?.first?["context"] as? [String: Any])
        #expect(context["tokens"] as? Int == ContextBudgetEndToEndTests.window)
        #expect(context["source"] as? String == "model list")
        #expect(context["readAt"] is String)
        let shown = try await sandbox.run("servers")
        #expect(shown.stdout.contains("context 1500 (model list, read "), "\(shown)")
        #expect(server.requests.filter { $0.method == "GET" }.count == 1, "listing asks nothing")
    }
}
