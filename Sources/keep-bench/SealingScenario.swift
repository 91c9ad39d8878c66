import KeepPorts
import KeepSealed

/// Seal and open of 1 KiB and 64 KiB payloads through the sealing port (``AESGCMSealer``),
/// against raw EVP AES-256-GCM on the same bytes (``RawAESGCM``).
///
/// Both seal with a fresh random nonce and allocate their result; the port also encodes
/// the row's binding as associated data (the raw side authenticates 64 bytes of its own)
/// and writes its format byte. A sample is many operations, since one takes microseconds.
struct SealingScenario: Scenario {
    let id = ScenarioID.sealing
    static let sizes = [1024, 65_536]

    static let rawEVP = "raw EVP AES-256-GCM"
    static let port = "sealing port (AESGCMSealer)"

    static func title(_ operation: String, _ size: Int) -> String { "\(operation), \(Payload.label(size))" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let sealer = try AESGCMSealer(dataKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        let raw = try RawAESGCM()
        let binding = SealBinding(
            owner: "bench", kind: "payload", shapeVersion: 1, subject: try sealer.subjectHash("https://example.invalid")
        )
        let aad = Payload.bytes(64, seed: 8)
        var comparisons: [Comparison] = []
        for size in Self.sizes {
            let payload = Payload.bytes(size, seed: size)
            let operations = size > 1024 ? max(1, scale.sealsPerSample / 16) : scale.sealsPerSample
            let sealed = try sealer.seal(payload, for: binding)
            let rawSealed = try raw.seal(payload, aad: aad)
            comparisons.append(
                Comparison(
                    title: Self.title("seal", size), metric: .latency, operation: "seal", baseline: Self.rawEVP,
                    contenders: [
                        Contender(Self.rawEVP, operationsPerSample: operations) {
                            for _ in 0..<operations { _ = try raw.seal(payload, aad: aad) }
                        },
                        Contender(Self.port, operationsPerSample: operations) {
                            for _ in 0..<operations { _ = try sealer.seal(payload, for: binding) }
                        },
                    ]))
            comparisons.append(
                Comparison(
                    title: Self.title("open", size), metric: .latency, operation: "open", baseline: Self.rawEVP,
                    contenders: [
                        Contender(Self.rawEVP, operationsPerSample: operations) {
                            for _ in 0..<operations { _ = try raw.open(rawSealed, aad: aad) }
                        },
                        Contender(Self.port, operationsPerSample: operations) {
                            for _ in 0..<operations { _ = try sealer.open(sealed, for: binding) }
                        },
                    ]))
        }
        return .ready(comparisons)
    }
}
