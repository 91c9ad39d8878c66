import Foundation
import KeepCore
import KeepEngines
import Synchronization

/// The engines module's HTTP port, answering as a test tells it to and remembering every
/// request (the URL and the key it carried).
package final class ScriptedServer: ServerHTTPPort {
    package enum Reply: Sendable {
        /// `200` with an OpenAI-compatible model list.
        case models([String])
        /// Any status with any body.
        case answer(status: Int, body: String)
        /// No answer at all.
        case unreachable(String)
    }

    package struct Request: Sendable, Equatable {
        package let url: URL
        package let apiKey: String?
        /// The authority file its server was to be verified against, when there was one.
        package var authority: String? = nil
        /// The protocol its server speaks (the key's header follows it).
        package var wire: ServerProtocol = .openai
    }

    private let state: Mutex<(reply: Reply, requests: [Request])>
    package let says: String?

    package init(_ reply: Reply, says: String? = "scripted-server/1.0") {
        state = Mutex((reply, []))
        self.says = says
    }

    package func answer(_ reply: Reply) {
        state.withLock { $0.reply = reply }
    }

    package var requests: [Request] { state.withLock { $0.requests } }

    package func get(
        _ url: URL, apiKey: APIKey?, keyOverHttpHosts: [String], authority: String?, wire: ServerProtocol
    ) throws(HTTPFailure) -> HTTPAnswer {
        // The key as text, for a test to compare: the double keeps what it was sent.
        let key = apiKey?.withBytes { String(decoding: $0, as: UTF8.self) }
        let reply = state.withLock { state in
            state.requests.append(Request(url: url, apiKey: key, authority: authority, wire: wire))
            return state.reply
        }
        switch reply {
        case .models(let ids):
            let entries = ids.map { #"{"id":\#(String(reflecting: $0)),"object":"model","owned_by":"test"}"# }
            let body = #"{"object":"list","data":[\#(entries.joined(separator: ","))]}"#
            return HTTPAnswer(status: 200, server: says, body: Array(body.utf8), latency: .milliseconds(12))
        case .answer(let status, let body):
            return HTTPAnswer(status: status, server: says, body: Array(body.utf8), latency: .milliseconds(3))
        case .unreachable(let reason):
            throw HTTPFailure(reason: reason)
        }
    }
}
