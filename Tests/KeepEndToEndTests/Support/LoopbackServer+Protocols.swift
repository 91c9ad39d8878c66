import Foundation

// MARK: - Anthropic and Gemini, as their public documentation gives them

extension LoopbackServer {
    /// Routes like Anthropic's Messages API: `POST …/messages` streams `pieces` as its named
    /// events do (`message_start` with the prompt's tokens, `content_block_start`, a `ping`,
    /// a `content_block_delta` per piece, `content_block_stop`, `message_delta` with the stop
    /// reason and the answer's tokens, `message_stop`), each event split in two writes so
    /// that it arrives across reads; anything else is a 404 in Anthropic's error shape.
    static func anthropic(_ pieces: [String], usage: (input: Int, output: Int) = (11, 7)) -> Handler {
        { request, responder in
            guard request.method == "POST", request.path.hasSuffix("/messages") else {
                responder.send(
                    status: 404,
                    body: #"{"type":"error","error":{"type":"not_found_error","message":"no route"}}"#)
                return
            }
            responder.beginEvents()
            func send(_ type: String, _ data: String) {
                responder.split("event: \(type)\ndata: \(data)\n\n")
            }
            send(
                "message_start",
                #"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","#
                    + #""content":[],"model":"claude-test","stop_reason":null,"usage":{"input_tokens":\#(usage.input),"#
                    + #""output_tokens":1}}}"#)
            send(
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#)
            send("ping", #"{"type": "ping"}"#)
            for piece in pieces {
                send(
                    "content_block_delta",
                    #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(Self.quoted(piece))}}"#
                )
            }
            send("content_block_stop", #"{"type":"content_block_stop","index":0}"#)
            send(
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"#
                    + #""usage":{"output_tokens":\#(usage.output)}}"#)
            send("message_stop", #"{"type":"message_stop"}"#)
        }
    }

    /// An Anthropic stream that reports an error event after `pieces` (as an overloaded
    /// server does mid-answer).
    static func anthropicFailing(after pieces: [String], message: String) -> Handler {
        { _, responder in
            responder.beginEvents()
            for piece in pieces {
                responder.split(
                    "event: content_block_delta\ndata: "
                        + #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(Self.quoted(piece))}}"#
                        + "\n\n")
            }
            responder.split(
                "event: error\ndata: "
                    + #"{"type":"error","error":{"type":"overloaded_error","message":\#(Self.quoted(message))}}"#
                    + "\n\n")
        }
    }

    /// Routes like Gemini: `POST …/models/MODEL:streamGenerateContent?alt=sse` streams
    /// `pieces`, each a whole `GenerateContentResponse`, the last with `finishReason` and
    /// `usageMetadata`, each split in two writes; the stream ends with the connection, as
    /// Gemini's does. Anything else is a 404 in Google's error shape.
    static func gemini(_ pieces: [String], usage: (prompt: Int, candidates: Int) = (5, 3)) -> Handler {
        { request, responder in
            guard request.method == "POST", request.path.contains(":streamGenerateContent") else {
                responder.send(
                    status: 404, body: #"{"error":{"code":404,"message":"no route","status":"NOT_FOUND"}}"#)
                return
            }
            responder.beginEvents()
            for (index, piece) in pieces.enumerated() {
                let last = index == pieces.count - 1
                let finish = last ? #","finishReason":"STOP""# : ""
                let meta =
                    last
                    ? #","usageMetadata":{"promptTokenCount":\#(usage.prompt),"candidatesTokenCount":\#(usage.candidates),"#
                        + #""totalTokenCount":\#(usage.prompt + usage.candidates)}"# : ""
                responder.split(
                    "data: "
                        + #"{"candidates":[{"content":{"parts":[{"text":\#(Self.quoted(piece))}],"role":"model"}\#(finish),"#
                        + #""index":0}]\#(meta),"modelVersion":"gemini-test"}"# + "\r\n\r\n")
            }
        }
    }

    /// `handler`, with each GET whose path is a key of `descriptions` answered with that JSON
    /// (a model list, `GET /v1/models`, or one model's description, `GET /v1/models/NAME`, as
    /// each protocol's documentation gives them); any other GET is a 404.
    static func describing(_ descriptions: [String: String], _ handler: @escaping Handler) -> Handler {
        { request, responder in
            guard request.method == "GET" else { return handler(request, responder) }
            guard let body = descriptions[request.path] else {
                return responder.send(status: 404, body: #"{"error":{"message":"no such model"}}"#)
            }
            responder.send(status: 200, body: body)
        }
    }

    /// Every request answered with `status` and the JSON `body`, whatever the path.
    static func answering(status: Int, body: String) -> Handler {
        { _, responder in responder.send(status: status, body: body) }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}

extension Responder {
    /// `text` in two chunks, cut in its middle, so that an event arrives across reads.
    func split(_ text: String) {
        let middle = text.index(text.startIndex, offsetBy: text.count / 2)
        chunk(String(text[..<middle]))
        chunk(String(text[middle...]))
    }
}
