/// Where a recorded turn landed in its chat: the question's index and the answer's.
public struct RecordedTurn: Sendable, Equatable {
    public let questionIndex: Int
    public let answerIndex: Int

    public init(questionIndex: Int, answerIndex: Int) {
        self.questionIndex = questionIndex
        self.answerIndex = answerIndex
    }
}
