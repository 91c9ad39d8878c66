import Foundation
import KeepPorts
import KeepSealed

/// What is new about one subject since the user last looked: which items, from which
/// reading, and what the marker becomes once the user has seen them.
public struct WhatIsNew: Sendable, Equatable {
    /// The module that says so.
    public let owner: KeptOwner
    /// What it is about, for people: a server's address.
    public let about: String
    /// The kind of item: `"models"`.
    public let kind: String
    /// The new items, by name.
    public let items: [String]
    /// When the reading they come from was read.
    public let readAt: Date
    /// True when there is nothing to compare with: the user never looked, or the readings
    /// from before their last look were pruned. Every item then counts as new.
    public let isFirstLook: Bool
    /// The newest item here and its place in the owner's order: what the marker becomes
    /// once the user has looked.
    public let newest: Mark

    /// An identifier of an item, and its place in the owner's order of items.
    public struct Mark: Sendable, Equatable {
        /// The item's identifier: a model's name.
        public let item: String
        /// Its place in the owner's order of items: later items are higher.
        public let position: Int64

        /// The mark of `item` at `position`.
        public init(item: String, position: Int64) {
            self.item = item
            self.position = position
        }
    }

    /// What is new about `about`, from `owner`: `items` of `kind`, from the reading at
    /// `readAt`.
    public init(
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
