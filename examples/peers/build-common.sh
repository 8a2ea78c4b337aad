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

# peer_compile COMMAND: compiles each source path read from stdin (one a line)
# with "COMMAND -c" into DEST/obj/<basename>.o, JOBS (default 2) at a time,
# skipping an object newer than its source; output in DEST/build.log; fails
# with the log's errors when a source does not compile
peer_compile() {
    mkdir -p "$DEST/obj"
    : > "$DEST/build.log"
    while read -r f; do
        o="$DEST/obj/$(basename "$f").o"
        [ -s "$o" ] && [ "$o" -nt "$f" ] && continue
        echo "$1 -c -o $o $f >> $DEST/build.log 2>&1 || { echo FAILED $f >> $DEST/build.log; rm -f $o; }"
    done > "$DEST/compile.jobs"
    xargs -P "${JOBS:-2}" -I{} sh -c '{}' < "$DEST/compile.jobs"
    if grep -q '^FAILED' "$DEST/build.log"; then grep -E 'error|^FAILED' "$DEST/build.log" | head -30 >&2; return 1; fi
}
