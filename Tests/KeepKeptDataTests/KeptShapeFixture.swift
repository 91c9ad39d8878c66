import Foundation
import Testing

@testable import KeepKeptData

/// One shape version as a build wrote it, and what this build must make of it: the
/// payload's bytes and a check that reads them.
struct KeptShapeFixture: Sendable, CustomTestStringConvertible {
    /// `RetentionPreference v1`.
    let name: String
    let shape: String
    let version: Int
    /// Reads the payload as that version and checks the value, then checks that what
    /// this build writes for the value reads back the same.
    let check: @Sendable () throws -> Void

    var testDescription: String { name + (fate.isEmpty ? "" : " (\(fate))") }
    let fate: String

    /// Every shape the owners keep. The shape wall checks this list against the sources,
    /// so a new shape cannot be kept without its versions being read here.
    static let shapes: [any KeptShape.Type] = [
        ModelsReading.self, HealthReading.self, ModelMarker.self, RetentionPreference.self, ServerOrder.self,
        LastOpenChat.self, ContextWindowsReading.self,
    ]

    init<S: KeptShape>(
        _ shape: S.Type, version: Int, _ payload: String, reads expected: S.Value, fate: String = ""
    ) where S.Value: Equatable {
        self.name = "\(S.self) v\(version)"
        self.shape = "\(S.self)"
        self.version = version
        self.fate = fate
        self.check = {
            let value = try S.decode(Array(payload.utf8), version: version)
            guard value == expected else {
                throw KeptError(.unreadable, operation: "check \(S.self) v\(version)", detail: "read \(value)")
            }
            let written = try S.decode(try S.encode(value), version: S.version)
            guard written == expected else {
                throw KeptError(.unreadable, operation: "check \(S.self) v\(S.version)", detail: "wrote \(written)")
            }
        }
    }

    static let all: [KeptShapeFixture] = {
        do {
            return [
                KeptShapeFixture(
                    ContextWindowsReading.self, version: 1,
                    #"{"models":{"m-1":{"tokens":8192,"answered":true,"readAt":1000},"m-2":{"tokens":null,"answered":false,"readAt":2000}}}"#,
                    reads: ContextWindows(models: [
                        "m-1": .init(tokens: 8192, answered: true, readAt: KeptInstant(millisecondsSince1970: 1000)),
                        "m-2": .init(tokens: nil, answered: false, readAt: KeptInstant(millisecondsSince1970: 2000)),
                    ])),
                KeptShapeFixture(
                    ModelsReading.self, version: 1,
                    #"{"since":1000,"models":[{"id":"m-1","firstSeen":1000},{"id":"m-2","firstSeen":2000}]}"#,
                    reads: ModelList(
                        models: [
                            .init(id: "m-1", firstSeen: KeptInstant(millisecondsSince1970: 1000)),
                            .init(id: "m-2", firstSeen: KeptInstant(millisecondsSince1970: 2000)),
                        ], since: KeptInstant(millisecondsSince1970: 1000))),
                KeptShapeFixture(
                    HealthReading.self, version: 1,
                    #"{"reachable":true,"latencyMs":12,"status":200,"says":"llama.cpp","problem":null}"#,
                    reads: ServerHealth(
                        reachable: true, latencyMilliseconds: 12, status: 200, says: "llama.cpp", problem: nil)),
                KeptShapeFixture(
                    ModelMarker.self, version: 1, #"{"model":"m-2","firstSeen":2000}"#,
                    reads: WhatIsNew.Mark(item: "m-2", position: 2000)),
                KeptShapeFixture(
                    RetentionPreference.self, version: 1, #"{"days":0}"#, reads: .untilForgotten,
                    fate: "migrated: 0 days meant until forgotten"),
                KeptShapeFixture(
                    RetentionPreference.self, version: 1, #"{"days":14}"#, reads: try Retention(days: 14),
                    fate: "migrated"),
                KeptShapeFixture(
                    RetentionPreference.self, version: 2, #"{"keep":"days","days":14}"#, reads: try Retention(days: 14)),
                KeptShapeFixture(
                    RetentionPreference.self, version: 2, #"{"keep":"untilForgotten"}"#, reads: .untilForgotten),
                KeptShapeFixture(
                    ServerOrder.self, version: 1, #"{"servers":["http://b.example.test/v1","http://a.example.test"]}"#,
                    reads: [try ServerAddress("http://b.example.test/v1"), try ServerAddress("http://a.example.test")]),
                KeptShapeFixture(LastOpenChat.self, version: 1, #"{"chat":"chat-7"}"#, reads: "chat-7"),
            ]
        } catch {
            preconditionFailure("the fixtures' values are valid: \(error)")
        }
    }()
}
