internal import CLibSecret
import KeepPorts

/// libsecret on a D-Bus connection of its own: the only code in Keep that calls C to reach
/// the Secret Service.
///
/// It connects on first use: the bus (``BusAddress``), a `SecretService` proxy on that
/// connection, and an encrypted session for moving secrets. After a failure that may mean
/// the bus or the service went away it drops everything, so the next call starts afresh.
///
/// Every operation works on the default collection only when it is there and unlocked:
/// otherwise it throws ``SecretsError/Code/noDefaultCollection`` or
/// ``SecretsError/Code/locked``, and never asks the service to unlock anything. Every
/// query is checked (``ItemQuery/check()``) before its attributes become C strings.
///
/// Not thread-safe: ``SecretServiceClient``, an actor on a thread of its own, confines each
/// instance to that thread.
final class LibSecretConnection {
    let bus: BusAddress
    private var live: Live?

    init(bus: BusAddress) {
        self.bus = bus
    }

    deinit {
        live?.release()
    }

    // MARK: - Operations

    /// Throws unless the default collection exists and is unlocked.
    func requireDefaultCollection() throws(SecretsError) {
        try using { live throws(SecretsError) in
            try unlockedDefaultCollection(live).release()
        }
    }

    /// Every item that is exactly `query`'s (``ItemQuery/isExactly(_:)``), in every
    /// collection, unlocked ones first (libsecret's order).
    ///
    /// The search itself never loads a secret and never unlocks (no
    /// `SECRET_SEARCH_LOAD_SECRETS`, no `SECRET_SEARCH_UNLOCK`). With `loadingSecret`, the
    /// secret of the first unlocked item, and only that one, is then fetched.
    func search(_ query: ItemQuery, loadingSecret: Bool) throws(SecretsError) -> [FoundItem] {
        try withAttributes(query) { attributes throws(SecretsError) in
            try using { live throws(SecretsError) in
                try unlockedDefaultCollection(live).release()
                var found: [FoundItem] = []
                try forEachItem(live, query, attributes) { item throws(SecretsError) in
                    let locked = secret_item_get_locked(item) != 0
                    let wanted = loadingSecret && !locked && !found.contains { !$0.locked }
                    found.append(FoundItem(locked: locked, secret: wanted ? try load(item) : nil))
                }
                return found
            }
        }
    }

    /// Stores `secret` as a new item named by `query` in the default collection; returns
    /// the item's object path. The item it supersedes is the caller's to delete.
    func create(_ query: ItemQuery, label: String, secret: SecretPayload) throws(SecretsError) -> String {
        try withAttributes(query) { attributes throws(SecretsError) in
            try using { live throws(SecretsError) in
                let collection = try unlockedDefaultCollection(live)
                defer { collection.release() }
                // secret_value_new copies the bytes into libsecret's own non-pageable memory,
                // which secret_value_unref wipes before freeing.
                let value = secret.withBytes { bytes in
                    withUnsafePointer(to: CChar(0)) { empty in
                        secret_value_new(
                            bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? empty, gssize(bytes.count),
                            secret.contentType)
                    }
                }
                guard let value else {
                    throw SecretsError(code: .backend, operation: "store", detail: "libsecret could not hold the value")
                }
                defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
                // A new item, never REPLACE: the service replaces an item whose attributes
                // merely include these (another application's, say). The caller deletes
                // keep's own older item, found by an exact match, once this one is there.
                let (item, failure) = calling { error in
                    secret_item_create_sync(
                        collection, schema(live, query.schema), attributes, label, value, SECRET_ITEM_CREATE_NONE,
                        nil, error)
                }
                guard let item else { throw self.failure(failure, "store") }
                defer { g_object_unref(UnsafeMutableRawPointer(item)) }
                return objectPath(item)
            }
        }
    }

    /// Deletes every unlocked item that is exactly `query`'s (``ItemQuery/isExactly(_:)``)
    /// except the one at `keptPath`; returns how many such items were left alone because
    /// they are locked. An item that only shares some attributes is never deleted.
    func delete(_ query: ItemQuery, except keptPath: String?) throws(SecretsError) -> Int {
        try withAttributes(query) { attributes throws(SecretsError) in
            try using { live throws(SecretsError) in
                try unlockedDefaultCollection(live).release()
                var lockedLeft = 0
                try forEachItem(live, query, attributes) { item throws(SecretsError) in
                    guard objectPath(item) != keptPath else { return }
                    guard secret_item_get_locked(item) == 0 else {
                        lockedLeft += 1
                        return
                    }
                    let (deleted, failure) = calling { secret_item_delete_sync(item, nil, $0) }
                    guard deleted != 0 else { throw self.failure(failure, "delete") }
                }
                return lockedLeft
            }
        }
    }

    // MARK: - Connecting

    /// What a connection holds; everything here is released by ``release()``.
    private struct Live {
        /// Where the service proxy's own signal handlers run: drained before each call, so
        /// they neither pile up nor run on a main loop that belongs to someone else.
        let context: OpaquePointer
        let connection: OpaquePointer
        let service: UnsafeMutablePointer<SecretService>
        let schemas: [ItemQuery.Schema: UnsafeMutablePointer<SecretSchema>]

        func release() {
            g_object_unref(UnsafeMutableRawPointer(service))
            // Closing can only fail when the bus already closed the connection; either way it is gone.
            _ = g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
            for schema in schemas.values { secret_schema_unref(schema) }
            // GDBus tears subscriptions down with callbacks queued on the context: run them,
            // then the context holds nothing and can go.
            LibSecretConnection.drain(context)
            g_main_context_unref(context)
        }
    }

    /// Runs `body` on a live connection, connecting first when there is none; after a
    /// failure that may mean the bus or the service went away, drops the connection.
    private func using<T>(_ body: (Live) throws(SecretsError) -> T) throws(SecretsError) -> T {
        let live = try connect()
        do {
            return try body(live)
        } catch {
            if ![.invalidRef, .locked, .noDefaultCollection].contains(error.code) {
                live.release()
                self.live = nil
            }
            throw error
        }
    }

    private func connect() throws(SecretsError) -> Live {
        if let live {
            Self.drain(live.context)
            return live
        }
        let address = try resolveAddress()
        // A connection of our own rather than GIO's shared session connection: that one ends
        // the whole process when the bus goes away (exit-on-close), a library must not.
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let (connection, connectFailure) = calling {
            g_dbus_connection_new_for_address_sync(address, flags, nil, nil, $0)
        }
        guard let connection else {
            throw SecretsError(
                code: .noSessionBus, operation: "connect",
                detail: "cannot connect to \(bus) (\(GLibFailure.message(connectFailure))); " + Self.noBusAdvice)
        }
        var connected = false
        defer { if !connected { g_object_unref(UnsafeMutableRawPointer(connection)) } }

        guard let context = g_main_context_new() else {
            throw SecretsError(code: .backend, operation: "connect", detail: "GLib could not make a main context")
        }
        defer { if !connected { g_main_context_unref(context) } }
        // The proxy subscribes to the bus's NameOwnerChanged while it is made; pushing our
        // context first makes those callbacks ours to run.
        g_main_context_push_thread_default(context)
        let made = makeServiceProxy(on: connection)
        g_main_context_pop_thread_default(context)
        let service = try made.get()
        defer { if !connected { g_object_unref(UnsafeMutableRawPointer(service)) } }

        // OpenSession: the first call that needs the service to answer, and the encrypted
        // channel secrets travel through. This is where "nobody owns the name" shows up.
        let (opened, sessionFailure) = calling { secret_service_ensure_session_sync(service, nil, $0) }
        guard opened != 0 else { throw failure(sessionFailure, "open a session") }

        var schemas: [ItemQuery.Schema: UnsafeMutablePointer<SecretSchema>] = [:]
        defer { if !connected { for schema in schemas.values { secret_schema_unref(schema) } } }
        for schema in ItemQuery.Schema.allCases {
            schemas[schema] = try makeSchema(schema)
        }

        let live = Live(context: context, connection: connection, service: service, schemas: schemas)
        self.live = live
        connected = true
        return live
    }

    /// The address to connect to: the one given, or the session bus's as GIO finds it.
    private func resolveAddress() throws(SecretsError) -> String {
        switch bus {
        case .address(let address):
            return address
        case .session:
            let (found, failure) = calling { g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, $0) }
            guard let found else {
                throw SecretsError(
                    code: .noSessionBus, operation: "connect",
                    detail: "there is no D-Bus session bus (\(GLibFailure.message(failure))); " + Self.noBusAdvice)
            }
            defer { g_free(found) }
            return String(cString: found)
        }
    }

    /// A `SecretService` proxy on `connection` rather than on the process-wide session bus.
    ///
    /// The object is made as ``serviceType`` (see there why not plainly `SecretService`).
    /// `g_initable_new` is variadic, which Swift cannot call, so it is made with
    /// `g_object_new_with_properties` and initialised with `g_initable_init`.
    private func makeServiceProxy(
        on connection: OpaquePointer
    ) -> Result<UnsafeMutablePointer<SecretService>, SecretsError> {
        // GLib's fundamental type for strings, G_TYPE_STRING: a function-like macro Swift does not import.
        let stringType = GType(16) << GType(G_TYPE_FUNDAMENTAL_SHIFT)
        var values = [GValue](repeating: GValue(), count: 4)
        g_value_init(&values[0], g_dbus_connection_get_type())
        g_value_set_object(&values[0], UnsafeMutableRawPointer(connection))
        let texts = ["org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service"]
        for (index, text) in zip(1..., texts) {
            g_value_init(&values[index], stringType)
            g_value_set_string(&values[index], text)
        }
        defer { for index in values.indices { g_value_unset(&values[index]) } }

        let names = ["g-connection", "g-name", "g-object-path", "g-interface-name"]
        let object = withCStrings(names[...]) { pointers in
            var pointers = pointers
            return g_object_new_with_properties(Self.serviceType, guint(names.count), &pointers, values)
        }
        guard let object else {
            return .failure(
                SecretsError(code: .backend, operation: "connect", detail: "GLib could not make a SecretService"))
        }
        let (initialised, failure) = calling { g_initable_init(OpaquePointer(object), nil, $0) }
        guard initialised != 0 else {
            g_object_unref(UnsafeMutableRawPointer(object))
            return .failure(self.failure(failure, "g_initable_init(SecretService)"))
        }
        return .success(UnsafeMutableRawPointer(object).assumingMemoryBound(to: SecretService.self))
    }

    /// `SecretService`, but willing to use the connection it is given.
    ///
    /// libsecret's own constructor sets every service proxy's `g-bus-type` to the session
    /// bus after the construct properties, whatever `g-connection` said, and GDBusProxy
    /// then asserts when it finds both. This subclass runs that constructor and sets
    /// `g-bus-type` back to none, so the proxy keeps the connection it was made with. It
    /// adds nothing else: same class and instance layout, registered once per process.
    private static let serviceType: GType = {
        let name = "KeepSecretServiceOnConnection"
        let registered = g_type_from_name(name)
        if registered != 0 { return registered }
        return g_type_register_static_simple(
            secret_service_get_type(), name, guint(MemoryLayout<SecretServiceClass>.size),
            { typeClass, _ in
                guard let typeClass else { return }
                typeClass.assumingMemoryBound(to: GObjectClass.self).pointee.constructor = { type, count, parameters in
                    // The parent class's constructor: libsecret's, which forces the session bus.
                    let parent = g_type_class_peek(secret_service_get_type())?.assumingMemoryBound(
                        to: GObjectClass.self)
                    guard let object = parent?.pointee.constructor?(type, count, parameters) else { return nil }
                    var none = GValue()
                    g_value_init(&none, g_bus_type_get_type())
                    g_value_set_enum(&none, G_BUS_TYPE_NONE.rawValue)
                    g_object_set_property(object, "g-bus-type", &none)
                    g_value_unset(&none)
                    return object
                }
            },
            guint(MemoryLayout<SecretService>.size), nil, GTypeFlags(rawValue: 0))
    }()

    /// One of Keep's schemas as libsecret wants it: every attribute a string, and
    /// `SECRET_SCHEMA_DONT_MATCH_NAME` so that searches match on the attributes alone
    /// (items stored by `secret-tool` with the same attributes are found too).
    private func makeSchema(_ schema: ItemQuery.Schema) throws(SecretsError) -> UnsafeMutablePointer<SecretSchema> {
        guard let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil) else {
            throw SecretsError(code: .backend, operation: "connect", detail: "GLib could not make a hash table")
        }
        defer { g_hash_table_unref(types) }
        for name in schema.attributeNames {
            // The value is the attribute's type, SECRET_SCHEMA_ATTRIBUTE_STRING, which is 0:
            // a null pointer. Names are distinct, so every insert adds a key.
            _ = g_hash_table_insert(
                types, g_strdup(name), UnsafeMutableRawPointer(bitPattern: Int(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue))
            )
        }
        guard let made = secret_schema_newv(schema.rawValue, SECRET_SCHEMA_DONT_MATCH_NAME, types) else {
            throw SecretsError(
                code: .backend, operation: "connect", detail: "libsecret refused the schema \(schema.rawValue)")
        }
        return made
    }

    // MARK: - Calls

    /// The default collection, which must exist and be unlocked; the caller releases it.
    private func unlockedDefaultCollection(_ live: Live) throws(SecretsError) -> UnsafeMutablePointer<SecretCollection>
    {
        // A fresh proxy each time, so `Locked` is what the service says now, not a cached answer.
        let (collection, failure) = calling {
            secret_collection_for_alias_sync(live.service, "default", SECRET_COLLECTION_NONE, nil, $0)
        }
        if failure != nil { throw self.failure(failure, "find the default keyring") }
        guard let collection else {
            throw SecretsError(
                code: .noDefaultCollection, operation: "connect",
                detail:
                    "the Secret Service on \(bus) has no default keyring; create one (with Seahorse, or "
                    + "`gnome-keyring-daemon --components=secrets --unlock`, which makes the login keyring) and retry")
        }
        guard secret_collection_get_locked(collection) == 0 else {
            collection.release()
            throw SecretsError(code: .locked, operation: "connect", detail: Self.lockedAdvice)
        }
        return collection
    }

    /// Calls `body` with each item that is exactly `query`'s, in any collection: the
    /// service's search matches a subset of the attributes, so each item it finds is
    /// checked again against the whole set and the schema name.
    private func forEachItem(
        _ live: Live, _ query: ItemQuery, _ attributes: OpaquePointer,
        _ body: (UnsafeMutablePointer<SecretItem>) throws(SecretsError) -> Void
    ) throws(SecretsError) {
        // SECRET_SEARCH_ALL only: every match, no secret loaded, nothing unlocked.
        let (list, failure) = calling {
            secret_service_search_sync(
                live.service, self.schema(live, query.schema), attributes, SECRET_SEARCH_ALL, nil, $0)
        }
        if failure != nil { throw self.failure(failure, "search") }
        // An empty result is a null list; each element holds a reference to its item.
        defer { g_list_free_full(list, g_object_unref) }
        var node = list
        while let current = node {
            node = current.pointee.next
            guard let item = current.pointee.data?.assumingMemoryBound(to: SecretItem.self),
                query.isExactly(Self.attributes(of: item))
            else { continue }
            try body(item)
        }
    }

    /// The attributes `item` carries, as the service last reported them.
    private static func attributes(of item: UnsafeMutablePointer<SecretItem>) -> [String: String] {
        guard let table = secret_item_get_attributes(item) else { return [:] }
        defer { g_hash_table_unref(table) }
        var attributes: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, table)
        var name: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iterator, &name, &value) != 0 {
            guard let name, let value else { continue }
            attributes[String(cString: name.assumingMemoryBound(to: CChar.self))] = String(
                cString: value.assumingMemoryBound(to: CChar.self))
        }
        return attributes
    }

    /// The secret of `item`, fetched over the session and copied out; libsecret's copy is wiped.
    private func load(_ item: UnsafeMutablePointer<SecretItem>) throws(SecretsError) -> [UInt8] {
        let (loaded, failure) = calling { secret_item_load_secret_sync(item, nil, $0) }
        guard loaded != 0 else { throw self.failure(failure, "read") }
        guard let value = secret_item_get_secret(item) else {
            throw SecretsError(code: .backend, operation: "read", detail: "the item \(objectPath(item)) has no secret")
        }
        // libsecret's free: secret_value_unref wipes the bytes before it releases them.
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        let bytes = secret_value_get(value, &length)
        guard let bytes, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }

    /// Builds the attribute table of `query` after checking it, and calls `body` with it.
    private func withAttributes<T>(
        _ query: ItemQuery, _ body: (OpaquePointer) throws(SecretsError) -> T
    ) throws(SecretsError) -> T {
        try query.check()
        guard let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free) else {
            throw SecretsError(code: .backend, operation: "name an item", detail: "GLib could not make a hash table")
        }
        defer { g_hash_table_unref(table) }
        for (name, value) in query.attributes {
            // Names come from a dictionary, so every insert adds a key.
            _ = g_hash_table_insert(table, g_strdup(name), g_strdup(value))
        }
        return try body(table)
    }

    private func schema(_ live: Live, _ schema: ItemQuery.Schema) -> UnsafeMutablePointer<SecretSchema>? {
        live.schemas[schema]
    }

    private func objectPath(_ item: UnsafeMutablePointer<SecretItem>) -> String {
        let proxy = UnsafeMutableRawPointer(item).assumingMemoryBound(to: GDBusProxy.self)
        return String(cString: g_dbus_proxy_get_object_path(proxy))
    }

    // MARK: - Errors

    /// The typed error for a failed call: a service nobody runs or that stopped answering, a
    /// locked item, a bus that closed, or the service's own error. `operation` is what was
    /// being done, in plain words (`store`, `read`): never the libsecret function's name.
    private func failure(_ failure: GLibFailure?, _ operation: String) -> SecretsError {
        guard let failure else {
            return SecretsError(code: .backend, operation: operation, detail: "the keyring did not say why")
        }
        if failure.is(g_dbus_error_quark(), G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue)
            || failure.is(g_dbus_error_quark(), G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue)
            || failure.is(g_dbus_error_quark(), G_DBUS_ERROR_NO_REPLY.rawValue)
            || failure.is(g_dbus_error_quark(), G_DBUS_ERROR_DISCONNECTED.rawValue)
        {
            return SecretsError(
                code: .noService, operation: operation,
                detail:
                    "no Secret Service answers on \(bus) (\(failure.message)); start one (log in to a desktop "
                    + "session, or run `gnome-keyring-daemon --components=secrets --unlock`) and retry")
        }
        if failure.is(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED.rawValue) {
            return SecretsError(code: .locked, operation: operation, detail: Self.lockedAdvice)
        }
        if failure.is(g_io_error_quark(), G_IO_ERROR_CLOSED.rawValue) {
            return SecretsError(
                code: .noSessionBus, operation: operation,
                detail: "the connection to \(bus) closed; " + Self.noBusAdvice)
        }
        return SecretsError(code: .backend, operation: operation, detail: "the keyring answered: \(failure.message)")
    }

    private static let noBusAdvice =
        "the keyring is reached over D-Bus: log in to a desktop session, or run keep under `dbus-run-session`"

    private static let lockedAdvice =
        "the keyring is locked; unlock it (log in to the desktop, or use your keyring tool) and retry. "
        + "Keep never unlocks it for you"

    /// Runs whatever is pending on `context` without waiting for more.
    static func drain(_ context: OpaquePointer) {
        while g_main_context_iteration(context, 0) != 0 {}
    }
}

// MARK: - Results

/// One item a search found: whether it is locked, and its secret when the search was asked
/// to load one.
struct FoundItem: Sendable {
    let locked: Bool
    /// The secret's bytes; `nil` unless the search loaded them.
    let secret: [UInt8]?
}

// MARK: - GLib helpers

/// A GError's facts, copied out so the GError itself can be freed at once.
struct GLibFailure {
    let domain: GQuark
    let code: Int32
    let message: String

    func `is`(_ domain: GQuark, _ code: UInt32) -> Bool {
        self.domain == domain && self.code == Int32(bitPattern: code)
    }

    static func message(_ failure: GLibFailure?) -> String {
        failure?.message ?? "no reason given"
    }
}

/// Calls a GLib function that reports failure through a `GError**`, and returns its result
/// with the error's facts; the GError is freed here.
private func calling<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) -> (T, GLibFailure?) {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    guard let error else { return (result, nil) }
    defer { g_error_free(error) }
    let message = error.pointee.message.map { String(cString: $0) } ?? "no message"
    return (result, GLibFailure(domain: error.pointee.domain, code: error.pointee.code, message: message))
}

/// Calls `body` with C strings for `strings`, valid for the duration of the call.
private func withCStrings<R>(
    _ strings: ArraySlice<String>, _ done: [UnsafePointer<CChar>?] = [], _ body: ([UnsafePointer<CChar>?]) -> R
) -> R {
    guard let first = strings.first else { return body(done) }
    return first.withCString { withCStrings(strings.dropFirst(), done + [$0], body) }
}

extension UnsafeMutablePointer where Pointee == SecretCollection {
    /// Drops the reference a libsecret call handed us.
    fileprivate func release() {
        g_object_unref(UnsafeMutableRawPointer(self))
    }
}
