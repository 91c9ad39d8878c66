// MARK: - Typed throws through the standard library's `rethrows` closures

extension Array {
    /// `withUnsafeBytes`, keeping `body`'s typed error instead of widening it to `any Error`.
    package func withBytes<T, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> T
    ) throws(Failure) -> T {
        try withUnsafeBytes { bytes in Result { () throws(Failure) -> T in try body(bytes) } }.get()
    }
}

extension Array {
    /// `withUnsafeMutableBytes`, keeping `body`'s typed error instead of widening it to
    /// `any Error`.
    package mutating func withMutableBytes<T, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> T
    ) throws(Failure) -> T {
        try withUnsafeMutableBytes { bytes in Result { () throws(Failure) -> T in try body(bytes) } }.get()
    }
}
