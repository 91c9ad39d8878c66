import Foundation

/// The `#if` branches of a file's code, line by line: which branch each line is in, and
/// whether a branch is Linux's with a Darwin branch beside it in the same `#if`.
///
/// A branch is Linux's when its condition names `os(Linux)`, `canImport(Glibc)` or
/// `canImport(Musl)` (not negated), or when it is the `#else` of a Darwin one; Darwin's
/// when its condition names `canImport(Darwin)` or an Apple `os(...)`, or it is the `#else`
/// of a Linux one.
struct PlatformBranches {
    enum Platform { case linux, darwin, other }

    /// One `#if … #endif`: the platform of each of its branches, in order.
    private final class Chain {
        var branches: [Platform] = []
    }

    private let lines: [String]
    /// For each line, the branches it is in, innermost last: a chain and the branch's index.
    private let enclosing: [[(chain: Chain, branch: Int)]]

    init(_ code: String) {
        lines = code.components(separatedBy: "\n")
        var stack: [(chain: Chain, branch: Int)] = []
        var enclosing: [[(chain: Chain, branch: Int)]] = []
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("#if ") {
                let chain = Chain()
                chain.branches.append(Self.platform(of: text))
                stack.append((chain, 0))
            } else if text.hasPrefix("#elseif "), let top = stack.popLast() {
                top.chain.branches.append(Self.platform(of: text))
                stack.append((top.chain, top.branch + 1))
            } else if text.hasPrefix("#else"), let top = stack.popLast() {
                let before = Set(top.chain.branches)
                top.chain.branches.append(
                    before.contains(.darwin) && !before.contains(.linux)
                        ? .linux : before.contains(.linux) && !before.contains(.darwin) ? .darwin : .other)
                stack.append((top.chain, top.branch + 1))
            } else if text.hasPrefix("#endif") {
                _ = stack.popLast()
            }
            enclosing.append(stack)
        }
        self.enclosing = enclosing
    }

    /// The indices of the lines where `pattern` matches.
    func lines(matching pattern: String) -> [Int] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [0] }
        return lines.indices.filter { index in
            let line = lines[index]
            return regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
    }

    /// Whether line `index` is in a Linux branch of an `#if` that also has a Darwin branch.
    func isLinuxWithDarwinSibling(_ index: Int) -> Bool {
        enclosing[index].contains { chain, branch in
            chain.branches[branch] == .linux && chain.branches.contains(.darwin)
        }
    }

    private static func platform(of directive: String) -> Platform {
        let condition = directive.drop { $0 != " " }
        let linux = #"(?<!!)\b(?:os\(Linux\)|canImport\((?:Glibc|Musl)\))"#
        let darwin = #"(?<!!)\b(?:canImport\(Darwin\)|os\((?:macOS|iOS|tvOS|watchOS|visionOS)\))|!os\(Linux\)"#
        if condition.range(of: darwin, options: .regularExpression) != nil { return .darwin }
        if condition.range(of: linux, options: .regularExpression) != nil { return .linux }
        return .other
    }
}
