import Foundation

/// Standard input's lines, read on a thread of their own and handed over as they come, so
/// the chat can wait for a line without holding a thread of the shared pool, and a Ctrl-C
/// can be handled while it waits.
///
/// On a terminal the kernel edits the line (backspace, Ctrl-U, Ctrl-W) and hands over
/// only whole lines; Ctrl-C discards the line being typed. End of input (Ctrl-D on an
/// empty line, or the end of a pipe) ends the stream.
struct LineInput: Sendable {
    let lines: AsyncStream<String>

    init() {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }.start()
    }
}
