#!/bin/sh
# Loads HTML reports in a real browser (headless chromium) and fails on a
# console error or an image that does not decode; saves a screenshot.
#
#   sh scripts/report-check.sh [BIN]          write a report holding every plot
#                                             kind (BIN/report-sample, built by
#                                             `make report-check`) and check it
#   sh scripts/report-check.sh --self-test [BIN]
#                                             the same page with a planted broken
#                                             image, a planted console error and
#                                             a planted uncaught exception: each
#                                             must fail the check
#   sh scripts/report-check.sh --page DIR...  check reports already written
#                                             (e.g. runs/<stamp>)
#
# Pages go under $REPORT_CHECK_DIR (default build/report-check).  Each checked
# DIR gets DIR/screenshot.png (1280 px wide) and DIR/chromium.log.
#
# How a page is judged.  The report carries two small scripts
# (reports/report.c): one counts console.error calls and error events, one
# checks on load that every <img> is complete with naturalWidth > 0, names a
# broken one with console.error, and writes data-images, data-broken-images
# and data-console-errors on <body>.  chromium --dump-dom (virtual time, so the
# load event has run) prints the DOM with those attributes; its log
# (--enable-logging=stderr --v=1) holds the console messages, which this
# chromium logs all as INFO: a line at ERROR level or an "Uncaught" exception
# fails the page too.  The page passes only when the attributes are there,
# data-images equals the <img> count of the file, and both error counts are 0.
#
# chromium is installed when missing (apt-get, with sudo when not root), as
# scripts/deps.sh does for the build.  Exit 0: every page passed; 1: a page
# failed (or, with --self-test, a planted fault went unnoticed); 2: set-up.
set -eu

OUT=${REPORT_CHECK_DIR:-build/report-check}
MODE=check
case "${1:-}" in
    --self-test) MODE=self; shift ;;
    --page) MODE=page; shift ;;
esac

die() { echo "report-check: $*" >&2; exit 2; }

browser() {
    for b in chromium chromium-browser; do
        if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return 0; fi
    done
    return 1
}

install_chromium() {
    browser >/dev/null && return 0
    echo "report-check: installing chromium" >&2
    command -v apt-get >/dev/null 2>&1 || die "chromium not found and no apt-get to install it"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install chromium"
        SUDO=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
    browser >/dev/null || die "chromium still not found after installing it"
}

# attr NAME FILE: the value of NAME="..." on <body> in the dumped DOM (empty if absent).
attr() {
    grep -o "<body[^>]*>" "$2" | head -n 1 | sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p"
}

# check_page DIR: 0 if DIR/index.html loads cleanly, 1 (with the reasons) if not.
check_page() {
    dir=$1
    html="$dir/index.html"
    [ -f "$html" ] || { echo "FAIL $html: no such file"; return 1; }
    abs=$(cd "$dir" && pwd)/index.html
    tmp=$(mktemp -d)
    B=$(browser)
    flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$tmp/profile"
    rc=0
    # shellcheck disable=SC2086
    timeout 120 "$B" $flags --enable-logging=stderr --v=1 --virtual-time-budget=5000 \
        --dump-dom "file://$abs" >"$tmp/dom.html" 2>"$dir/chromium.log" || rc=$?
    fails=""
    [ "$rc" -eq 0 ] || fails="$fails; chromium exited $rc loading it"
    imgs=$(grep -o "<img " "$html" | wc -l | tr -d ' ')
    n=$(attr data-images "$tmp/dom.html")
    bad=$(attr data-broken-images "$tmp/dom.html")
    errs=$(attr data-console-errors "$tmp/dom.html")
    if [ -z "$n" ] || [ -z "$bad" ] || [ -z "$errs" ]; then
        fails="$fails; the page's check did not run (no data-images/data-broken-images/data-console-errors on <body>)"
    else
        [ "$n" -eq "$imgs" ] || fails="$fails; the browser saw $n images, the file has $imgs"
        [ "$bad" -eq 0 ] || fails="$fails; $bad image(s) did not decode"
        [ "$errs" -eq 0 ] || fails="$fails; $errs console error(s)"
    fi
    grep -E ':ERROR:CONSOLE|CONSOLE.*\] "Uncaught' "$dir/chromium.log" >"$tmp/errors" || true
    if [ -s "$tmp/errors" ]; then
        fails="$fails; console errors in chromium's log"
    fi
    # shellcheck disable=SC2086
    timeout 120 "$B" $flags --virtual-time-budget=5000 --window-size=1280,3000 \
        --screenshot="$(cd "$dir" && pwd)/screenshot.png" "file://$abs" >/dev/null 2>>"$dir/chromium.log" || true
    if ! head -c 8 "$dir/screenshot.png" 2>/dev/null | od -An -c | grep -q "P   N   G"; then
        fails="$fails; no screenshot written"
    fi
    rm -rf "$tmp"
    if [ -n "$fails" ]; then
        echo "FAIL $html:${fails#;}"
        grep "CONSOLE" "$dir/chromium.log" | sed 's/^/    /' | head -n 20
        return 1
    fi
    echo "ok   $html: $n images decoded, no console error; screenshot $dir/screenshot.png"
    return 0
}

sample() {
    BIN=${1:-bin}
    [ -x "$BIN/report-sample" ] || die "$BIN/report-sample missing: run make report-check (or make $BIN/report-sample)"
    mkdir -p "$OUT"
    rm -rf "$OUT/sample"
    "$BIN/report-sample" "$OUT/sample" >/dev/null || die "$BIN/report-sample failed"
}

install_chromium
case $MODE in
check)
    sample "${1:-bin}"
    check_page "$OUT/sample"
    ;;
page)
    [ $# -gt 0 ] || die "--page needs at least one report folder"
    st=0
    for d in "$@"; do check_page "$d" || st=1; done
    exit $st
    ;;
self)
    sample "${1:-bin}"
    check_page "$OUT/sample" || { echo "report-check self-test: the clean page failed"; exit 1; }
    # A broken image: the first PNG's base64 shifted by four characters, so it
    # no longer starts with the PNG signature and cannot decode.
    rm -rf "$OUT/planted-image" "$OUT/planted-console" "$OUT/planted-exception"
    mkdir -p "$OUT/planted-image" "$OUT/planted-console" "$OUT/planted-exception"
    sed '0,/base64,iVBORw0KGgo/s//base64,AAAAiVBORw0KGgo/' "$OUT/sample/index.html" \
        >"$OUT/planted-image/index.html"
    grep -q "base64,AAAAiVBORw0KGgo" "$OUT/planted-image/index.html" || die "could not plant the broken image"
    # A console error from a script of its own (every image fine).
    sed 's|</main>|<script>console.error("planted console error");</script></main>|' "$OUT/sample/index.html" \
        >"$OUT/planted-console/index.html"
    # An uncaught exception.
    sed 's|</main>|<script>throw new Error("planted exception");</script></main>|' "$OUT/sample/index.html" \
        >"$OUT/planted-exception/index.html"
    st=0
    for p in planted-image planted-console planted-exception; do
        if check_page "$OUT/$p"; then
            echo "report-check self-test: $OUT/$p/index.html passed, but it has a planted fault"
            st=1
        else
            echo "report-check self-test: $OUT/$p/index.html failed, as it must"
        fi
    done
    [ $st -eq 0 ] && echo "report-check self-test: passed (clean page passes, all three planted faults fail)"
    exit $st
    ;;
esac
