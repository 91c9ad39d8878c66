/// A rule over the source tree, as a test holds it: the rule as a sentence, a scan that
/// answers its violations, and a planted breach the scan must see (so a wall that finds
/// nothing is known to be looking).
package struct SourceWall: Sendable, CustomStringConvertible {
    /// The rule, as a sentence.
    package let rule: String
    /// The violations of the rule in a tree, each naming the file and what is wrong.
    package let violations: @Sendable ([SourceFile]) -> [String]
    /// Files that break the rule, added to the real tree to prove the scan sees a breach.
    package let breach: [SourceFile]

    /// The wall that holds `rule`, by `violations`, proven to look by `breach`.
    package init(rule: String, violations: @escaping @Sendable ([SourceFile]) -> [String], breach: [SourceFile]) {
        self.rule = rule
        self.violations = violations
        self.breach = breach
    }

    /// The rule: how a test case names the wall.
    package var description: String { rule }

    /// The rule behind "X is used only in Y": the files whose code matches `pattern`, outside
    /// the places `allowed`, each said with `what`.
    package static func onlyIn(
        _ pattern: String, allowed: @escaping @Sendable (SourceFile) -> Bool, what: String
    ) -> @Sendable ([SourceFile]) -> [String] {
        { files in
            files.filter { !allowed($0) && !$0.matches(pattern).isEmpty }.map { "\($0.path) \(what)" }
        }
    }
}
