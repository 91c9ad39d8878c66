import Foundation
import KeepTerminal

/// Text a server sent (an error message, its `Server` header, a model id, a redirect's
/// `Location`), made fit to show or keep: the user's key hidden in it.
///
/// A server that echoes the `Authorization` header back, whole or as the bare key, must
/// not get the key printed on a terminal, written into an error or sealed into kept data.
/// Only the key is replaced (its `Bearer` form contains it, so that is hidden too); the
/// rest of the text is the server's own. Control, format and bidirectional characters are
/// neutralised by the one rule keep has for them (``TerminalText``), never by a second:
/// ``hidingKey(_:_:)`` leaves them, so what is kept holds the server's bytes, and
/// ``shown(_:hidingKey:)`` applies that rule for text going into a line of keep's words.
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

    /// `text` as a line of keep's own words may quote it: the key hidden, then every
    /// character a terminal would obey shown as a stand-in, newlines and tabs included
    /// (``TerminalText/neutralised(_:oneLine:)``).
    package static func shown(_ text: String, hidingKey key: APIKey?) -> String {
        TerminalText.neutralised(hidingKey(text, key), oneLine: true)
    }
}
