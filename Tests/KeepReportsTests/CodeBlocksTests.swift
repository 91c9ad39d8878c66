import Testing

@testable import KeepReports

/// `keep ask -x`: the fenced code blocks of an answer.
@Suite("The code blocks of an answer")
struct CodeBlocksTests {
    @Test("every fenced block, backticks or tildes, in order, without its fences or info string")
    func blocks() {
        let answer = "Text\n```swift\nlet a = 1\n```\nmore\n~~~~\n```not a fence inside```\n~~~~\n"
        #expect(CodeBlocks.extract(answer) == ["let a = 1\n", "```not a fence inside```\n"])
    }

    @Test("an answer without a fence has no block; one cut off still gives what it has")
    func edges() {
        #expect(CodeBlocks.extract("just `inline` code").isEmpty)
        #expect(CodeBlocks.extract("```\nhalf") == ["half\n"])
    }
}
