import KeepPorts
import KeepSealed

/// What every module that keeps markers implements, so that "what's new" is collected
/// from all of them rather than listed somewhere by hand.
///
/// `keep whatsnew` asks every implementation; a test over the owners' schemas fails when
/// a module has a markers table and no implementation.
///
/// The contract: ``whatIsNew()`` answers from what is kept, never from the network, and
/// changes nothing; ``looked(at:)`` moves this module's markers up to the newest item of
/// each piece of news given (its own; others' it ignores), never back, so news shown
/// late cannot unmark something newer.
package protocol SaysWhatIsNew: Sendable {
    /// The module whose markers these are.
    var owner: KeptOwner { get }

    /// What is new since the user last looked, one entry per subject and kind that has
    /// anything new.
    func whatIsNew() async throws(KeptError) -> [WhatIsNew]

    /// Records that the user has seen `news`.
    func looked(at news: [WhatIsNew]) async throws(KeptError)
}
