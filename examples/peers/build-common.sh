# Sourced by the peers' build.sh scripts (`. "$(dirname "$0")/../build-common.sh"`):
# the steps they share.  SRC must be set (the source tree, absolute).

# peer_dest DIR: make DIR; DEST := its absolute path
peer_dest() {
    mkdir -p "$1"
    DEST=$(cd "$1" && pwd)
}

# peer_copy DIR: DIR emptied, then a copy of SRC without .git and its commit
# (peer_commit); DEST := its absolute path
peer_copy() {
    rm -rf "$1"
    peer_dest "$1"
    (cd "$SRC" && tar cf - --exclude=.git .) | (cd "$DEST" && tar xf -)
    peer_commit
}

# peer_commit: SRC's commit (hash and date, or "unknown" outside git) into
# DEST/COMMIT; a COMMIT file in SRC (a copy made without .git) is taken as is
peer_commit() {
    if [ -f "$SRC/COMMIT" ] && [ "$SRC/COMMIT" != "$DEST/COMMIT" ]; then
        cp "$SRC/COMMIT" "$DEST/COMMIT"
    elif [ ! -f "$SRC/COMMIT" ]; then
        (git -C "$SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown) > "$DEST/COMMIT"
    fi
}
