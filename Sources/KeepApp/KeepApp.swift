// KeepApp: see DESIGN.md §2. Filled in by its issue.
