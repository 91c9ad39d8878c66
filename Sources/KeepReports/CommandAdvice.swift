import KeepApp
import KeepConversation
import KeepEngines
import KeepPorts

/// The command lines keep advises, in one place: an engine or a keeper says what failed and
/// what could be done about it as a value (``KeepEngines/EngineError/Remedy``), and this
/// says it as `keep` commands.
package enum CommandAdvice {
    /// `` `keep key set SLOT` ``, with `--account` when the account is not the default.
    package static func keySet(_ ref: SecretRef) -> String {
        "`keep key set \(ref.slot.rawValue)\(accountOption(ref))`"
    }

    /// `` `keep key rm SLOT` ``, with `--account` when the account is not the default.
    package static func keyRemove(_ ref: SecretRef) -> String {
        "`keep key rm \(ref.slot.rawValue)\(accountOption(ref))`"
    }

    /// `` `keep settings set keyOverHttpHosts HOST` ``.
    package static func allowHost(_ host: String) -> String {
        "`keep settings set keyOverHttpHosts \(host)`"
    }

    /// `keep settings set baseUrl URL`.
    package static func setBaseURL(_ url: String) -> String {
        "keep settings set baseUrl \(url)"
    }

    /// What to do about `remedy`, as it follows the failure's own line (with its joiner:
    /// `; store one with …` or `. Use an https:// baseUrl; …`).
    package static func advice(_ remedy: EngineError.Remedy) -> String {
        switch remedy {
        case .storeKey(let ref):
            "; store one with \(keySet(ref))"
        case .replaceKey(let ref):
            "; store the right one with \(keySet(ref))"
        case .keyOverPlainHTTP(let ref, let host):
            ". Use an https:// baseUrl; or, if that server needs no key, remove it with \(keyRemove(ref)); "
                + "or, for a server on a network you trust, allow that host with \(allowHost(host))"
        case .pointBaseURL(let url):
            ". If that is the right server, point keep at it: \(setBaseURL(url))"
        case .useSystemAuthorities(let server):
            " (keep servers add \(server) URL without --ca uses the system's authorities)"
        }
    }

    /// `error`'s line, followed by what to do about it when there is one thing to do.
    package static func line(_ error: EngineError) -> String {
        error.message + (error.remedy.map(advice) ?? "")
    }

    /// The line a command prints for `error`: an engine's failure (a turn's included) with
    /// its remedy said as a command; anything else as it describes itself.
    package static func line(for error: any Error) -> String {
        switch error {
        case let error as EngineError:
            line(error)
        case TurnError.engine(let cause, let chatId):
            "\(line(cause)); the question is kept as chat \(chatId)'s draft"
        default:
            "\(error)"
        }
    }

    private static func accountOption(_ ref: SecretRef) -> String {
        ref.account == "default" ? "" : " --account \(StorageError.quoted(ref.account))"
    }
}
