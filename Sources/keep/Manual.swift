import KeepApp
import KeepCLI

/// keep's manual: the man page `keep help --man` prints and `docs/keep.1` holds, made from
/// the command table, the help topics and what `keep --help` says of keep as a whole.
enum Manual {
    static var page: String {
        ManPage.text(
            ManPage.Front(
                source: "keep \(KeepVersion.text)",
                tagline: "a terminal chat whose conversations survive a crash",
                usage: Keep.usage, description: Keep.description + "\n\n" + Keep.notes, examples: Keep.examples,
                seeAlso: """
                    The keep guide, docs/keep-guide.md in keep's source, says all of this at length: \
                    using keep, every command and the JSON each prints, and what keep keeps.
                    """),
            commands: CommandTable.commands.map(\.spec), topics: HelpTopics.all)
    }
}
