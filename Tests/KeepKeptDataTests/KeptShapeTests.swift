import Foundation
import Testing

@testable import KeepKeptData

@Suite("Shape versions of kept payloads")
struct KeptShapeTests {
    @Test("every shape version ever written has a test that reads it")
    func everyVersionHasAFixture() {
        let written = Set(
            KeptShapeFixture.shapes.flatMap { shape in shape.versionsEverWritten.map { "\(shape) v\($0)" } })
        let read = Set(KeptShapeFixture.all.map(\.name))
        #expect(written.subtracting(read) == [], "versions written and never read by a test")
        #expect(read.subtracting(written) == [], "fixtures of versions never written")
        for shape in KeptShapeFixture.shapes {
            #expect(shape.versionsEverWritten.last == shape.version, "\(shape) writes its newest version")
            #expect(shape.versionsEverWritten == shape.versionsEverWritten.sorted(), "\(shape) lists versions in order")
        }
    }

    @Test("a shape version ever written reads as what it meant, an older one migrated", arguments: KeptShapeFixture.all)
    func versionReads(_ fixture: KeptShapeFixture) throws {
        try fixture.check()
    }

    @Test("a shape version no build wrote is unreadable, never guessed at", arguments: KeptShapeFixture.all)
    func unknownVersionIsUnreadable(_ fixture: KeptShapeFixture) throws {
        let shape = try #require(KeptShapeFixture.shapes.first { "\($0)" == fixture.shape })
        for version in [0, shape.version + 1, -1] {
            let error = #expect(throws: KeptError.self) { _ = try shape.decode(Array("{}".utf8), version: version) }
            #expect(error?.code == .unreadable)
            #expect(error?.description.contains("not one this build reads") == true)
        }
    }

    @Test("a payload that is not the shape it claims is unreadable", arguments: KeptShapeFixture.all)
    func wrongBytesAreUnreadable(_ fixture: KeptShapeFixture) throws {
        let shape = try #require(KeptShapeFixture.shapes.first { "\($0)" == fixture.shape })
        for payload in ["", "not json", "[]", #"{"unrelated":true}"#] {
            let error = #expect(throws: KeptError.self, "\(payload)") {
                _ = try shape.decode(Array(payload.utf8), version: fixture.version)
            }
            #expect(error?.code == .unreadable)
        }
    }

    @Test(
        "a retention kept in shape 1 with a day count no build could choose is unreadable, never clamped",
        arguments: [#"{"days":400}"#, #"{"days":-3}"#])
    func outOfRangeRetentionIsUnreadable(_ payload: String) {
        let error = #expect(throws: KeptError.self) {
            _ = try RetentionPreference.decode(Array(payload.utf8), version: 1)
        }
        #expect(error?.code == .unreadable)
    }
}
