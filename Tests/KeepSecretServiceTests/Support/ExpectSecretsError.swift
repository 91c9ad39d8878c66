import KeepPorts
import Testing

/// Expects `body` to throw a `SecretsError` with `code`, and returns it for more checks.
@discardableResult
func expectSecretsError(
    _ code: SecretsError.Code, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws(SecretsError) -> Void
) async -> SecretsError? {
    do {
        try await body()
        Issue.record("\(what) succeeded; expected \(code)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(what): \(error)", sourceLocation: sourceLocation)
        return error
    }
    return nil
}
