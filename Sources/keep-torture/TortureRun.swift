import KeepConformance

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of the torture tool: where it writes, as which writer, and its random numbers.
struct TortureRun {
    let path: String
    let writer: Int
    /// Sequence numbers of this run start after `generation × 1,000,000`.
    let generation: Int
    let seed: UInt64

    /// This run's random numbers: a stream of its own for each writer and generation.
    func generator() -> SeededGenerator {
        SeededGenerator(seed: seed &+ UInt64(writer) << 40 &+ UInt64(generation) << 20)
    }

    /// The first sequence number of this run, less one.
    var firstSequence: Int { generation * 1_000_000 }

    /// A size spread evenly over the powers of two from 2^4 to 2^`bits`.
    static func randomSize(upTo bits: Int, _ generator: inout SeededGenerator) -> Int {
        let power = Int.random(in: 4..<bits, using: &generator)
        return Int.random(in: (1 << power)...(1 << (power + 1)) - 1, using: &generator)
    }

    /// Writes `line` and a newline to standard output in one write(2), so the line is whole
    /// even when the process dies right after; exits if it cannot.
    static func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written != bytes.count { exit(1) }
    }

    /// Reports `error` and exits 1.
    static func fail(_ error: any Error) -> Never {
        emit("error \(error)")
        exit(1)
    }

    /// Nanoseconds on CLOCK_MONOTONIC, a clock every process on the machine shares.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
