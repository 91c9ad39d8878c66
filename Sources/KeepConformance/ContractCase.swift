/// One rule of a contract, as data: a name and a check that can be run against any adapter.
///
/// `check` takes a factory that returns a fresh, isolated adapter (call it as often as the
/// rule needs), exercises the rule, and throws a ``ContractViolation`` that names this
/// case when the adapter breaks it. Any other error the adapter throws while the rule runs
/// is turned into a violation of this case too, so a run reports which rule failed, never
/// just "an error".
///
/// ```swift
/// @Test(arguments: StorageContract.cases)
/// func myStoreHonoursTheContract(_ rule: ContractCase<any StoragePort>) async throws {
///     try await rule.check { MyStore() }
/// }
/// ```
public struct ContractCase<Adapter>: Sendable, CustomStringConvertible {
    /// What a case is handed to make an adapter: each call returns a fresh, isolated one.
    public typealias Factory = @Sendable () async throws -> Adapter

    /// The rule as a sentence: `"an empty string is a value, not an absence"`.
    public let name: String
    private let body: @Sendable (_ make: Factory, _ expect: Expectation) async throws -> Void

    /// The rule called `name`, checked by `body`, which makes adapters with the factory and
    /// states what it expects with the expectation (so every failure names this case).
    public init(
        _ name: String, _ body: @escaping @Sendable (_ make: Factory, _ expect: Expectation) async throws -> Void
    ) {
        self.name = name
        self.body = body
    }

    /// Runs the rule against adapters made by `make`; throws a violation naming this case.
    public func check(_ make: @escaping Factory) async throws(ContractViolation) {
        do {
            try await body(make, Expectation(caseName: name))
        } catch let violation as ContractViolation {
            throw violation
        } catch {
            throw ContractViolation(caseName: name, message: "unexpected error: \(error)")
        }
    }

    public var description: String { name }
}

/// What a contract case uses to state what it expects; each failure names the case.
public struct Expectation: Sendable {
    /// The name of the case whose expectations these are; every violation carries it.
    public let caseName: String

    /// Throws a violation of this case with `message` unless `condition` holds.
    public func that(_ condition: Bool, _ message: @autoclosure () -> String) throws(ContractViolation) {
        if !condition { throw ContractViolation(caseName: caseName, message: message()) }
    }

    /// Throws a violation unless `actual == expected`; values are summarised, never dumped.
    public func equal<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws(ContractViolation) {
        if actual != expected {
            throw ContractViolation(
                caseName: caseName, message: "\(what): expected \(summary(expected)), got \(summary(actual))")
        }
    }

    /// Runs `operation` and throws a violation unless it throws an error of type `E`
    /// that satisfies `matches`; returns that error.
    @discardableResult
    public func throwsError<E: Error>(
        _ type: E.Type, _ what: String, where matches: (E) -> Bool = { _ in true },
        _ operation: () async throws -> Void
    ) async throws(ContractViolation) -> E {
        do {
            try await operation()
        } catch let error as E where matches(error) {
            return error
        } catch {
            throw ContractViolation(caseName: caseName, message: "\(what): threw the wrong error: \(error)")
        }
        throw ContractViolation(caseName: caseName, message: "\(what): expected an error, but it succeeded")
    }

    private func summary<T>(_ value: T) -> String {
        if let string = value as? String { return Self.summary(string) }
        if let string = value as? String? {
            return string.map(Self.summary) ?? "nil"
        }
        if let strings = value as? [String] { return "[" + strings.map(Self.summary).joined(separator: ", ") + "]" }
        return String(describing: value)
    }

    private static func summary(_ string: String) -> String {
        string.utf8.count <= 40
            ? String(reflecting: string)
            : "\(String(reflecting: String(string.prefix(24))))… (\(string.utf8.count) bytes)"
    }
}

/// A contract case an adapter broke: which one, and how.
public struct ContractViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the broken case, exactly as in the contract.
    public let caseName: String
    /// How the adapter broke it, in words: what was expected and what came back, values
    /// summarised.
    public let message: String

    /// The violation of the case `caseName`, saying how in `message`.
    public init(caseName: String, message: String) {
        self.caseName = caseName
        self.message = message
    }

    public var description: String { "contract case \"\(caseName)\" violated: \(message)" }
}
