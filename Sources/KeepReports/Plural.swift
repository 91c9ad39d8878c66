/// A count and its noun, agreeing: `1 chat`, `2 chats`, `0 chats`.
package enum Plural {
    /// `number` and `noun`, with `plural` (else `noun` + `s`) for any number but one.
    package static func of(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }
}
