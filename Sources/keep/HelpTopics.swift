import KeepCLI

/// What `keep help TOPIC` explains besides the commands, in the order `keep --help` lists
/// them; each is a section of the manual too. The guide (docs/keep-guide.md) says the same
/// at length.
enum HelpTopics {
    static let files = HelpTopic(
        "files", heading: "FILES", summary: "Where keep keeps your chats, settings and keys",
        text: """
            The data root is $XDG_DATA_HOME/keep, else $HOME/.local/share/keep; with neither \
            variable set keep refuses to start rather than guess. Under it:

              store/chats/ID     one chat: sealed records with a keyring, else JSON lines
              store/drafts/ID    the question of a chat whose answer has not come
              store/settings/settings
                                 the settings, JSON you may edit; never a key
              store/cache/       bookkeeping: the one-time migration's done-marker
              chat-index.sqlite  a cache of the chats' titles and of what search needs;
                                 deleting it loses nothing
              store/history/questions
                                 the lines typed at the chat's prompt (chatHistory),
                                 sealed with the chats
              store.lock         held while a turn or a setting is written
              kept.sqlite        what keep read from servers, sealed under a key in
                                 the keyring
              store.json         an older build's store, copied once, left as it was

            Ids other than a-z, 0-9, - and _ are escaped in file names (~ and two hex \
            digits). Keys are never under the data root: each is an item of the Secret \
            Service (GNOME Keyring, KWallet) with the attributes app=keep, slot and account.
            """)

    static let environment = HelpTopic(
        "environment", heading: "ENVIRONMENT", summary: "The environment variables keep reads",
        text: """
              XDG_DATA_HOME, HOME
                  where the data root is (keep help files)
              NO_COLOR
                  when set and not empty, answers are shown as they came, not rendered
              DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR
                  the session bus, where the Secret Service (the keyring) is asked
              OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY,
              OPENROUTER_API_KEY
                  read only when no keyring answers: the key of that slot's default
                  account, held in memory for this run alone
              http_proxy, https_proxy, ALL_PROXY, no_proxy
                  honoured for other hosts; keep adds this machine's own addresses to
                  no_proxy, so a server on this machine is never reached through a proxy;
                  a server added with --ca is always asked directly
            """)

    static let scripting = HelpTopic(
        "scripting", heading: "SCRIPTING", summary: "keep in scripts: output, exit status, JSON, ids",
        text: """
            keep ask prints the answer on standard output and the chat's id on standard \
            error. Text piped in joins the question (at most 1 MiB). Exit status: 0 \
            success; 1 failure, with one line on standard error that starts with "keep:" \
            (for keep ask, no complete answer came: the question is kept as the chat's \
            draft); 2 a command line that does not fit, with the usage. Runs in parallel \
            are safe: each turn is written whole, under a lock.

            Every command that lists takes --json: one JSON object, its keys sorted, its \
            times UTC ISO 8601 with milliseconds. Chat ids may be shortened to any start \
            that only one chat has. keep chats --ids prints the ids alone, one a line.
            """)

    static let network = HelpTopic(
        "network", heading: "NETWORK", summary: "What keep sends to a server, and where",
        text: """
            Only the remote engine, keep engines and keep whatsnew talk to a server, and \
            only to the one in the baseUrl setting: POST {baseUrl}/chat/completions for an \
            answer, GET {baseUrl}/models for the model list. The key stored for the keySlot \
            and keyAccount settings goes with them as "Authorization: Bearer"; with no key \
            stored there is no Authorization header at all.

            The key and the question go only to the origin of baseUrl: a redirect elsewhere \
            is refused. Over plain http a key goes only to this machine, unless its host is \
            named in keyOverHttpHosts. What a server sends is shown as text, never obeyed \
            by the terminal, and an answer larger than answerLimitMiB ends the turn.

            A server added with --ca FILE is asked over https alone, its certificate \
            verified against the authorities in FILE and no others; a certificate refused \
            so (another authority's, expired, for another name) gets nothing, not the key \
            nor the question.
            """)

    /// Every topic, in the order `keep --help` lists them.
    static let all = [files, environment, scripting, network]
}
