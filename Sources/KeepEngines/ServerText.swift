import Foundation

/// Text a server sent (an error message, its `Server` header, a model id, a redirect's
/// `Location`), made fit to show or keep: the user's key hidden in it.
///
/// A server that echoes the `Authorization` header back, whole or as the bare key, must
/// not get the key printed on a terminal, written into an error or sealed into kept data.
/// Only the key is replaced (its `Bearer` form contains it, so that is hidden too); the
/// rest of the text is the server's own. Control characters are left for the terminal
/// printer to neutralise (``TerminalText``), so what is kept holds the server's bytes.
/// An answer that arrives in pieces is hidden piece by piece by ``KeyRedactor``.
package enum ServerText {
    /// What stands in for the key.
    package static let hiddenKey = "[your key]"

    /// `text` with every occurrence of `key` replaced by ``hiddenKey``; `text` as it is
    /// when there is no key.
    package static func hidingKey(_ text: String, _ key: APIKey?) -> String {
        guard key != nil else { return text }
        return KeyRedactor.hiding(key, in: text)
    }
}
