# Installs the Debian packages a command needs, when they are missing.
# Sourced by the scripts in scripts/; never needs anything but dpkg and apt-get.

# ensure_packages PKG...: install every PKG that is not installed yet (one apt-get run).
ensure_packages() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "keep: need root or sudo to install: ${missing[*]}" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "keep: installing ${missing[*]} (apt-get)" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || true
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# require_swift: fail with a clear line when no Swift toolchain is on PATH.
require_swift() {
    command -v swift >/dev/null && return 0
    [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH" && return 0
    echo "keep: no Swift toolchain found (swift 6 or newer, from swift.org); install it and retry" >&2
    return 1
}

# What building Keep needs: the C libraries its system-library targets wrap, and libcurl's
# development files, which linking Foundation in (`--static-swift-stdlib`, see scripts/keep)
# asks for by name.
BUILD_PACKAGES=(pkg-config libsqlite3-dev libssl-dev libsecret-1-dev libedit-dev libcurl4-openssl-dev)
# What testing Keep needs besides: a private Secret Service, and the independent clients.
TEST_PACKAGES=(dbus gnome-keyring libsecret-tools libglib2.0-bin sqlite3 procps)
# The network-edge tests: the openssl command (a test authority and an https server),
# ip (a network namespace of their own), unshare/nsenter/mount (util-linux, mount).
TEST_PACKAGES+=(openssl iproute2 util-linux mount)
# The shell-completion and manual tests: each shell checks its script (bash -n, zsh -n,
# fish -n; bash-completion is where scripts/install puts bash's), man renders docs/keep.1.
TEST_PACKAGES+=(bash-completion zsh fish man-db groff-base)
