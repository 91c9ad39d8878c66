import Foundation
import Synchronization

/// A loopback OpenAI-compatible server for the kept-data tests: `GET …/models` lists the
/// models a test sets (and can change between runs), with a `Server` banner, or answers
/// 503 while the test has it down.
final class KeptModelServer: Sendable {
    /// What the server answers with, shared with its handler.
    private final class Script: Sendable {
        let state: Mutex<(models: [String], down: Bool)>
        init(_ models: [String]) { state = Mutex((models, false)) }
    }

    private let script: Script
    let banner: String
    let server: LoopbackServer

    init(models: [String], banner: String = "kept-e2e-server") throws {
        let script = Script(models)
        self.script = script
        self.banner = banner
        server = try LoopbackServer { request, responder in
            let (models, down) = script.state.withLock { ($0.models, $0.down) }
            guard request.method == "GET", request.path.hasSuffix("/models"), !down else {
                responder.send(status: down ? 503 : 404, body: #"{"error":{"message":"not now"}}"#)
                return
            }
            let list = models.map { #"{"id":"\#($0)","object":"model","owned_by":"e2e"}"# }.joined(separator: ",")
            let body = #"{"object":"list","data":[\#(list)]}"#
            responder.raw(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nServer: \(banner)\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
    }

    var baseURL: String { server.baseURL }
    var requests: [LoopbackServer.Request] { server.requests }

    /// Lists `models` from now on.
    func list(_ models: [String]) {
        script.state.withLock { $0.models = models }
    }

    /// Answers 503 to every request while `down`.
    func setDown(_ down: Bool) {
        script.state.withLock { $0.down = down }
    }
}
