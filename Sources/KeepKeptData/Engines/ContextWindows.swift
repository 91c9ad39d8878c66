import Foundation

/// What the engines module has learned of one server's context windows, per model: what the
/// server said (a window, or none) and when, or that it did not answer.
///
/// An answer is asked again after ``answeredAge`` (a model's window rarely changes); no
/// answer after ``unansweredAge``, so a server that was down is asked again soon but not on
/// every turn. At most ``most`` models are kept per server, the oldest readings dropped.
package struct ContextWindows: Sendable, Equatable {
    /// What the server said of one model.
    package struct Entry: Sendable, Equatable {
        /// The window in tokens; `nil` when the server gave none (or did not answer).
        package let tokens: Int?
        /// Whether the server answered (a window or plainly none); false when no answer came.
        package let answered: Bool
        /// When it was asked.
        package let readAt: KeptInstant

        /// An entry: `tokens`, whether the server `answered`, asked at `readAt`.
        package init(tokens: Int?, answered: Bool, readAt: KeptInstant) {
            self.tokens = answered ? tokens : nil
            self.answered = answered
            self.readAt = readAt
        }

        /// Whether it is young enough, at `now`, to answer without asking again.
        func isFresh(now: Date) -> Bool {
            let age = now.timeIntervalSince(readAt.date)
            return age >= 0 && age < (answered ? ContextWindows.answeredAge : ContextWindows.unansweredAge)
        }
    }

    /// How long a server's answer stands: seven days.
    package static let answeredAge: TimeInterval = 7 * 86_400
    /// How long a server that did not answer is left unasked: an hour.
    package static let unansweredAge: TimeInterval = 3_600
    /// The most models kept per server.
    package static let most = 32

    /// By model name.
    package private(set) var models: [String: Entry]

    /// The windows `models`.
    package init(models: [String: Entry] = [:]) {
        self.models = models
    }

    /// Keeps `entry` for `model`, dropping the oldest readings past ``most``.
    mutating func set(_ entry: Entry, for model: String) {
        models[model] = entry
        while models.count > Self.most, let oldest = models.min(by: { $0.value.readAt < $1.value.readAt })?.key {
            models[oldest] = nil
        }
    }
}

// MARK: - Kept as a reading

/// The `context-windows` reading of the engines module: what a server said of its models'
/// context windows.
///
/// Shape 1: `{"models": {NAME: {"tokens": n | null, "answered": bool, "readAt": ms}, …}}`.
enum ContextWindowsReading: KeptShape {
    static let kind = "context-windows"
    static let version = 1
    static let versionsEverWritten = [1]

    private struct V1: Codable {
        struct Entry: Codable {
            let tokens: Int?
            let answered: Bool
            let readAt: Int64
        }
        let models: [String: Entry]
    }

    static func encode(_ value: ContextWindows) throws(KeptError) -> [UInt8] {
        try json(
            V1(
                models: value.models.mapValues {
                    V1.Entry(tokens: $0.tokens, answered: $0.answered, readAt: $0.readAt.millisecondsSince1970)
                }))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> ContextWindows {
        guard version == 1 else { throw unknownVersion(version) }
        let shape = try json(V1.self, from: bytes, version: version)
        return ContextWindows(
            models: shape.models.mapValues {
                ContextWindows.Entry(
                    tokens: $0.tokens, answered: $0.answered, readAt: KeptInstant(millisecondsSince1970: $0.readAt))
            })
    }
}
