import KeepPorts

#if canImport(Glibc)
    import Glibc
#endif

/// A `StoragePort` over another that fails chosen operations with a chosen errno, as a
/// refused or full disk does, and counts the calls it passes on and the keys it wrote.
actor FaultyStorage: StoragePort {
    enum Operation: Hashable, Sendable {
        case read, write, remove, list, clear, append
    }

    private let base: any StoragePort
    private var faults: [Operation: (error: StorageError?, errno: Int32, only: StorageKey?)] = [:]
    private(set) var calls: [Operation: Int] = [:]
    /// The keys written through this adapter, in order.
    private(set) var written: [StorageKey] = []

    init(_ base: any StoragePort) {
        self.base = base
    }

    /// From now on, `operations` fail as a system call failing with `errno` does (on
    /// `only`, when given).
    func fail(_ operations: Set<Operation>, errno: Int32 = EACCES, only: StorageKey? = nil) {
        for operation in operations { faults[operation] = (nil, errno, only) }
    }

    /// From now on, `operations` throw `error` (on `only`, when given).
    func fail(_ operations: Set<Operation>, with error: StorageError, only: StorageKey? = nil) {
        for operation in operations { faults[operation] = (error, 0, only) }
    }

    /// Every operation works again.
    func heal() {
        faults = [:]
    }

    func read(_ key: StorageKey) async throws(StorageError) -> String? {
        try check(.read, key)
        return try await base.read(key)
    }

    func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try check(.write, key)
        try await base.write(key, value)
        written.append(key)
    }

    func remove(_ key: StorageKey) async throws(StorageError) {
        try check(.remove, key)
        try await base.remove(key)
    }

    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try check(.list, nil)
        return try await base.listIds(namespace)
    }

    func clear(_ namespace: Namespace) async throws(StorageError) {
        try check(.clear, nil)
        try await base.clear(namespace)
    }

    func append(_ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String) async throws(StorageError) -> Bool {
        try check(.append, key)
        let appended = try await base.append(key, line)
        if appended { written.append(key) }
        return appended
    }

    private func check(_ operation: Operation, _ key: StorageKey?) throws(StorageError) {
        calls[operation, default: 0] += 1
        guard let fault = faults[operation] else { return }
        if let only = fault.only, only != key { return }
        throw fault.error ?? .system("\(operation)", path: key?.description ?? "the namespace", errno: fault.errno)
    }
}
