import KeepPorts

/// Where an engine asks: the server (its name and address), the model asked when a question
/// names none, and the keychain ref whose key goes with each request. What the command line
/// shows and checks (the greeting, `/model`, a key that cannot be read) without knowing the
/// engine's type.
package struct EngineEndpoint: Sendable, Equatable {
    /// The server's name, as the servers book names it (`default` for the settings' own).
    package let name: String
    /// The server's address, as shown: never a user name or password.
    package let server: String
    /// The model asked when a question names none.
    package let model: String
    /// Where the key sent with each request comes from; never the key itself.
    package let keyRef: SecretRef

    /// The endpoint `name` at `server`, asking `model` by default, sending the key in `keyRef`.
    package init(name: String, server: String, model: String, keyRef: SecretRef) {
        self.name = name
        self.server = server
        self.model = model
        self.keyRef = keyRef
    }
}
