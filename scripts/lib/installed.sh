# What scripts/install puts under a PREFIX, and where it records that; sourced by
# scripts/install and scripts/uninstall, so the two never disagree.

# Every file install writes, relative to PREFIX (the manifest aside).
INSTALLED_FILES=(
    bin/keep
    share/man/man1/keep.1
    share/bash-completion/completions/keep
    share/zsh/site-functions/_keep
    share/fish/vendor_completions.d/keep.fish
    share/keep/install-manifest
)
# The record of one install: `file PATH` for each file, `dir PATH` for each directory it made.
MANIFEST=share/keep/install-manifest
