/// Where a recorded turn landed in its chat: the question's index and the answer's.
public struct RecordedTurn: Sendable, Equatable {
    /// The question's index in the chat's messages.
    public let questionIndex: Int
    /// The answer's index, right after the question's.
    public let answerIndex: Int

    /// A turn recorded at these indices.
    public init(questionIndex: Int, answerIndex: Int) {
        self.questionIndex = questionIndex
        self.answerIndex = answerIndex
    }
}
