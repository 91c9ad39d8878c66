import KeepPorts

/// The attributes that name one Secret Service item under one of Keep's two schemas.
///
/// A user's credential is `app`, `slot`, `account` under ``Schema/secret``; an app key is
/// `app`, `key` under ``Schema/appKey``. No ref can produce a `key` attribute and no key
/// name a `slot`, so a search under one schema never finds an item of the other.
///
/// An item is keep's only when its attributes are exactly the query's (``isExactly(_:)``):
/// the service's own search matches a subset, so every result is checked again here.
///
/// ``check()`` is the run-time gate at the C boundary: every query is checked there again
/// before any attribute becomes a C string, so nothing outside the closed set of slots,
/// and no value C would cut short at a NUL, can ever name an item.
struct ItemQuery: Sendable {
    /// The two item shapes Keep stores, each a libsecret schema of its own.
    enum Schema: String, Sendable, CaseIterable {
        /// A user's credential for one provider and account.
        case secret = "keep.Secret"
        /// A key the app made for itself (for example the data key of sealed storage).
        case appKey = "keep.AppKey"

        /// The attribute names an item of this schema carries, every one of them always.
        var attributeNames: [String] {
            switch self {
            case .secret: ["app", "slot", "account"]
            case .appKey: ["app", "key"]
            }
        }
    }

    let schema: Schema
    let attributes: [String: String]

    /// The item of the secret `ref`, for `application`.
    static func secret(_ ref: SecretRef, application: String) -> ItemQuery {
        ItemQuery(
            schema: .secret, attributes: ["app": application, "slot": ref.slot.rawValue, "account": ref.account])
    }

    /// The item of the app key `name`, for `application`.
    static func appKey(_ name: KeyName, application: String) -> ItemQuery {
        ItemQuery(schema: .appKey, attributes: ["app": application, "key": name.rawValue])
    }

    /// Throws ``SecretsError/Code/invalidRef`` unless the attributes are exactly the
    /// schema's, the application name is valid, a slot is one of the closed set, and no
    /// value holds a NUL.
    func check() throws(SecretsError) {
        guard Set(attributes.keys) == Set(schema.attributeNames) else {
            throw refused("the attributes \(attributes.keys.sorted()) are not those of \(schema.rawValue)")
        }
        for (name, value) in attributes where value.utf8.contains(0) {
            throw refused("the \(name) \(StorageError.quoted(value)) holds a NUL character")
        }
        if let application = attributes["app"] {
            try Self.checkApplication(application)
        }
        // The slot enum is closed at compile time; this is the second check, at run time,
        // so no string but the five slot names ever reaches a keychain attribute.
        if schema == .secret, let slot = attributes["slot"], SecretSlot(rawValue: slot) == nil {
            throw refused(
                "\(StorageError.quoted(slot)) is not a slot; the slots are "
                    + SecretSlot.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// Throws ``SecretsError/Code/invalidRef`` unless `name` is 1–64 characters of
    /// `A-Z a-z 0-9 . _ -`: the value of every item's `app` attribute.
    static func checkApplication(_ name: String) throws(SecretsError) {
        let allowed = name.utf8.allSatisfy { byte in
            (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2e || byte == 0x5f || byte == 0x2d
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw SecretsError(
                code: .invalidRef, operation: "application name",
                detail:
                    "\(StorageError.quoted(name)) is not an application name (1-64 characters of A-Z, a-z, 0-9, ., _, -)"
            )
        }
    }

    /// Whether an item carrying `attributes` is this query's item: exactly the query's
    /// attributes with the same values, nothing more and nothing less, and a schema name
    /// (`xdg:schema`, which libsecret records beside them) that is this query's schema, or
    /// says the item was stored without one: absent, or ``genericSchema`` (what
    /// `secret-tool store` and other clients record).
    ///
    /// The Secret Service matches a search on a subset of an item's attributes, so another
    /// application's item that carries keep's attributes and one more (`owner otherapp`)
    /// comes back from the search; this is the check that leaves it alone.
    func isExactly(_ attributes: [String: String]) -> Bool {
        var others = attributes
        if let schemaName = others.removeValue(forKey: Self.schemaAttribute), schemaName != schema.rawValue,
            schemaName != Self.genericSchema
        {
            return false
        }
        return others == self.attributes
    }

    /// The attribute in which libsecret records an item's schema name.
    static let schemaAttribute = "xdg:schema"
    /// The schema name recorded for an item stored without a schema of its own.
    static let genericSchema = "org.freedesktop.Secret.Generic"

    private func refused(_ why: String) -> SecretsError {
        SecretsError(code: .invalidRef, operation: "name an item", detail: why)
    }
}
