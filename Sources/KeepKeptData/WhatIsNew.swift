import Foundation
import KeepPorts
import KeepSealed

/// What is new about one subject since the user last looked: which items, from which
/// reading, and what the marker becomes once the user has seen them.
package struct WhatIsNew: Sendable, Equatable {
    /// The module that says so.
    package let owner: KeptOwner
    /// What it is about, for people: a server's address.
    package let about: String
    /// The kind of item: `"models"`.
    package let kind: String
    /// The new items, by name.
    package let items: [String]
    /// When the reading they come from was read.
    package let readAt: Date
    /// True when there is nothing to compare with: the user never looked, or the readings
    /// from before their last look were pruned. Every item then counts as new.
    package let isFirstLook: Bool
    /// The newest item here and its place in the owner's order: what the marker becomes
    /// once the user has looked.
    package let newest: Mark

    /// An identifier of an item, and its place in the owner's order of items.
    package struct Mark: Sendable, Equatable {
        /// The item's identifier: a model's name.
        package let item: String
        /// Its place in the owner's order of items: later items are higher.
        package let position: Int64

        /// The mark of `item` at `position`.
        package init(item: String, position: Int64) {
            self.item = item
            self.position = position
        }
    }

    /// What is new about `about`, from `owner`: `items` of `kind`, from the reading at
    /// `readAt`.
    package init(
        owner: KeptOwner, about: String, kind: String, items: [String], readAt: Date, isFirstLook: Bool, newest: Mark
    ) {
        self.owner = owner
        self.about = about
        self.kind = kind
        self.items = items
        self.readAt = readAt
        self.isFirstLook = isFirstLook
        self.newest = newest
    }
}
