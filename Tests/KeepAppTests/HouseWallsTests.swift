import KeepTestSupport
import Testing

@Suite("The house's walls, over the source tree")
struct HouseWallsTests {
    @Test("the wall holds over the source tree", arguments: HouseWall.all)
    func wallHolds(_ wall: SourceWall) throws {
        let tree = try SourceTree.sources()
        #expect(tree.count > 50, "the tree was found: \(SourceTree.root.path)")
        #expect(wall.violations(tree) == [])
    }

    @Test("the wall's scan sees a breach planted in the source tree", arguments: HouseWall.all)
    func wallSeesABreach(_ wall: SourceWall) throws {
        let found = wall.violations(try SourceTree.sources() + wall.breach)
        // Each planted file is seen, not only one of them.
        for planted in wall.breach {
            #expect(found.contains { $0.hasPrefix(planted.path) }, "\(planted.path) was not seen: \(found)")
        }
    }

    @Test(
        "a Linux-only symbol is allowed only in a Linux branch that has a Darwin branch beside it",
        arguments: [
            ("#if os(Linux)\n    x.st_mtim\n#else\n    x.st_mtimespec\n#endif", true),
            ("#if canImport(Darwin)\n    x.st_mtimespec\n#else\n    x.st_mtim\n#endif", true),
            ("#if canImport(Glibc)\n    x.st_mtim\n#elseif canImport(Darwin)\n    y\n#endif", true),
            ("#if canImport(Glibc)\n    x.st_mtim\n#endif", false),
            ("#if os(Linux)\n#endif\nx.st_mtim", false),
            ("#if !os(Linux)\n    y\n#else\n    x.st_mtim\n#endif", true),
            ("#if os(Linux)\n    #if DEBUG\n        x.st_mtim\n    #endif\n#else\n    y\n#endif", true),
            ("#if canImport(Darwin)\n    y\n#elseif DEBUG\n    x.st_mtim\n#endif", false),
        ])
    func branchesAreRead(code: String, allowed: Bool) {
        let branches = PlatformBranches(code)
        let lines = branches.lines(matching: #"\bst_mtim\b"#)
        #expect(lines.count == 1, "the symbol is found once")
        #expect(lines.allSatisfy { branches.isLinuxWithDarwinSibling($0) } == allowed)
    }
}
