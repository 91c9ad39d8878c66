import Foundation
import KeepApp
import KeepCLI
import KeepCore
import KeepKeptData

/// `keep whatsnew`: what is new since you last looked, from every module that keeps
/// markers; looking moves the markers on.
enum WhatsNewCommand {
    static let command = Command(
        "whatsnew", summary: "Show what is new since you last looked, such as models a server added",
        help: """
            Asks every module that keeps markers. The server in the baseUrl setting is read afresh first when keep
            has read it before; others answer from their kept readings. What is shown counts as seen.
            """,
        examples: [
            "keep whatsnew": "Show the models a server added since you last looked:"
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json]), run: run)

    /// What `--json` prints: one object holding the news.
    struct Report: Codable, Sendable {
        let news: [Item]
    }

    /// One piece of news in `--json`.
    struct Item: Codable, Sendable {
        let owner: String
        let about: String
        let kind: String
        let items: [String]
        let readAt: String
        let firstLook: Bool
    }

    static func run(_ invocation: Invocation) async throws {
        let kept = try await EnginesCommand.keptData(invocation)
        try await refreshCurrent(kept, invocation)
        var news: [WhatIsNew] = []
        for source in kept.sayWhatIsNew {
            news += try await source.whatIsNew()
        }
        if invocation.json {
            try invocation.printJSON(
                Report(
                    news: news.map {
                        Item(
                            owner: $0.owner.name, about: $0.about, kind: $0.kind, items: $0.items,
                            readAt: UTCTime.text($0.readAt), firstLook: $0.isFirstLook)
                    }))
        } else {
            invocation.console.show(news.isEmpty ? "Nothing new since you looked.\n" : news.map(describe).joined())
        }
        for source in kept.sayWhatIsNew {
            try await source.looked(at: news)
        }
    }

    /// Reads the server in `baseUrl` again when keep has read it before, so what is new
    /// includes what it lists now; a server that cannot be read is a warning.
    private static func refreshCurrent(_ kept: KeptData, _ invocation: Invocation) async throws {
        let core = try await invocation.core()
        guard let current = await EnginesCommand.defaultServer(core, invocation),
            (try? await kept.engines.servers().contains(current.address)) == true
        else { return }
        let server = current.address
        let readings = try await EnginesCommand.refresh(current, kept.engines, core, invocation)
        if readings.models?.isFresh != true, let problem = readings.health?.value.problem {
            invocation.console.warning("\(server) cannot be read now (\(problem)); what is new is from kept readings")
        }
    }

    /// `http://…: 1 new model since you looked (read just now)` and the items.
    private static func describe(_ news: WhatIsNew) -> String {
        let count = news.items.count
        let noun = count == 1 && news.kind.hasSuffix("s") ? String(news.kind.dropLast()) : news.kind
        let age = ReadingAge(readAt: news.readAt, now: Date())
        let head =
            news.isFirstLook
            ? "\(news.about): \(count) \(noun), a first look (nothing to compare with yet; read \(age))"
            : "\(news.about): \(count) new \(noun) since you looked (read \(age))"
        return head + "\n" + news.items.map { "  \(Console.field($0))\n" }.joined()
    }
}
