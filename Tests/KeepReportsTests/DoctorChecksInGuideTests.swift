import Foundation
import Testing

/// The guide's list of doctor's checks, held to the checks the code can make: every name a
/// check is made with in `Sources/KeepReports` is in the guide's sentence, and no other.
@Suite("The guide names doctor's checks")
struct DoctorChecksInGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The names `code` makes checks with: `.init("data root", .ok, …)` and the like.
    static func checkNames(in code: String) -> Set<String> {
        Set(code.matches(of: /"([a-z][a-z ]*)",\s*\.(?:ok|note|problem)\b/).map { String($0.output.1) })
    }

    /// The names in backticks in the guide's sentence "The checks are …", up to the next sentence
    /// that says what they look at.
    static func listed(in guide: String) -> Set<String> {
        guard let start = guide.range(of: "The checks are "),
            let end = guide[start.upperBound...].range(of: "What they look at")
        else { return [] }
        let sentence = guide[start.upperBound..<end.lowerBound]
        // A backticked name that is a file (`store.json`) is not a check's.
        return Set(sentence.matches(of: /`([a-z][a-z ]*)`/).map { String($0.output.1) })
    }

    @Test("every check keep doctor can make is in the guide's list, and the list names no other")
    func guideListsEveryCheck() throws {
        let folder = Self.root.appendingPathComponent("Sources/KeepReports")
        var code = ""
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            code += try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        let made = Self.checkNames(in: code)
        #expect(
            made.isSuperset(of: ["data root", "chats", "core dumps", "key over http"]), "the scan finds them: \(made)")
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/keep-guide.md"), encoding: .utf8)
        let listed = Self.listed(in: guide)
        #expect(made.subtracting(listed).isEmpty, "doctor makes these, the guide does not list them")
        #expect(listed.subtracting(made).isEmpty, "the guide lists these, doctor makes none of them")
        // The scan sees a check made over two lines, and passes a name that is not a check's.
        #expect(
            Self.checkNames(in: ".init(\n    \"new check\", .problem,\n    \"detail\")\nlet x = \"word\", y") == [
                "new check"
            ])
    }
}
