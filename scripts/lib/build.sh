# Builds keep as scripts/keep and scripts/install ship it. Sourced; needs packages.sh first.
#
# Release, with the Swift runtime and Foundation linked in (--static-swift-stdlib): keep
# starts in about half the time, with a third as many shared libraries for the dynamic
# linker to load and bind. Quiet on a pipe and when keep is up to date; on a terminal, a
# build shows its work (a line saying so, then SwiftPM's steps on one line that updates,
# then how long it took); the whole log on standard error when it fails.

# build_progress: reads SwiftPM's output on standard input and shows, on standard error,
# each step that compiles, emits or links, on one line that updates (cut to the terminal's
# width); nothing for a build that had nothing to do. Succeeds when something was built.
build_progress() {
    local line width shown=""
    width=$(($(tput cols 2>/dev/null || echo 80) - 1))
    while IFS= read -r line; do
        case $line in
        \[*/*\]\ Compiling* | \[*/*\]\ Emitting* | \[*/*\]\ Linking*)
            if [ -z "$shown" ]; then
                echo "keep: building keep (release: a first build takes minutes; later ones, seconds)" >&2
                shown=1
            fi
            printf '\r\033[K%s' "${line:0:width}" >&2
            ;;
        esac
    done
    [ -z "$shown" ] && return 1
    printf '\r\033[K' >&2
}

# build_keep ROOT: builds ROOT's keep into ROOT/.build/release/keep, or fails with the log.
build_keep() {
    local root=$1 log status started=$SECONDS
    log=$(mktemp "${TMPDIR:-/tmp}/keep-build.XXXXXX")
    set +e
    if [ -t 2 ]; then
        swift build -c release --static-swift-stdlib --package-path "$root" --product keep 2>&1 |
            tee "$log" | build_progress
        local statuses=("${PIPESTATUS[@]}")
        status=${statuses[0]}
        [ "$status" -eq 0 ] && [ "${statuses[2]}" -eq 0 ] && echo "keep: built in $((SECONDS - started)) s" >&2
    else
        swift build -c release --static-swift-stdlib --package-path "$root" --product keep >"$log" 2>&1
        status=$?
    fi
    set -e
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        rm -f "$log"
        echo "keep: the build failed (log above)" >&2
        return 1
    fi
    rm -f "$log"
}
