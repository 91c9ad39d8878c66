import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession set-up every request of keep's is sent with: nothing shared, nothing kept.
///
/// Every session has no cookie storage, no URL cache and no credential storage, sets and
/// accepts no cookie, and reads no cache: what a server answers never reaches a file, and
/// nothing of one request is carried to another.
///
/// FoundationNetworking builds every configuration from `URLSessionConfiguration.default`,
/// which reaches for the shared cookie storage and URL cache, and making those creates
/// directories outside keep's data root (`$XDG_DATA_HOME/<the binary's folder>/` for the
/// cookies, the cache's own under the caches directory), whatever the session then uses.
/// ``makeSharedStorageInert()`` makes both once, at start-up, where they can create
/// nothing; keep calls it before any thread starts.
package enum SessionConfiguration {
    /// A configuration with nothing shared or kept, failing a transfer silent for `idleTimeout` seconds.
    package static func make(idleTimeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = nil
        return configuration
    }

    /// Makes URLSession's shared cookie storage and URL cache where they can create no
    /// file or directory: the cookie storage while `XDG_DATA_HOME` names `/dev/null` (a
    /// directory cannot be made under it, so none is; keep never uses that storage), the
    /// shared URL cache replaced by one without memory, disk or directory. `XDG_DATA_HOME`
    /// is put back as it was at once.
    ///
    /// Changes the environment for a moment (`setenv`), so it runs before any other
    /// thread does, as the rest of keep's start-up does; a second call changes nothing.
    package static func makeSharedStorageInert() {
        let name = "XDG_DATA_HOME"
        let saved = getenv(name).map { String(cString: $0) }
        setenv(name, "/dev/null", 1)
        _ = HTTPCookieStorage.shared
        if let saved { setenv(name, saved, 1) } else { unsetenv(name) }
        URLCache.shared = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: "/dev/null")
    }
}
