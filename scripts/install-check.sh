#!/bin/sh
# Checks an installed crosscheck as its users meet it.  `make test` runs it
# on a staged `make install PREFIX=P` (make install-check):
#   sh scripts/install-check.sh P HEADER...   (HEADER: the Makefile's PUBLIC_HEADERS)
#  1. P/include/crosscheck/xc_plugin.h compiles alone, copied into a folder
#     with no other crosscheck header, as C11 and as C++, and includes
#     nothing but standard headers;
#  2. each shipped header compiles on its own against P/include/crosscheck
#     (the declared list is closed under its includes), and nothing else is
#     installed there;
#  3. with PKG_CONFIG_PATH=P/lib/pkgconfig, `pkg-config --cflags --libs
#     crosscheck` builds examples/plugin-dedisp out of tree (and its own
#     Makefile does, as C and as C++: the dedisperser and the single-pulse
#     searcher), and the installed crosscheck loads them;
#  4. `pkg-config --static --libs crosscheck` links a program with the
#     static library, which lists the built-in implementations.
# Prints one line per step; exits 1 at the first failure, naming it.
set -u
P=$1
shift
ROOT=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/xc-install-check.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}
CXX=${CXX:-c++}
WARN="-Wall -Wextra -Werror"
PKG_CONFIG_PATH=$P/lib/pkgconfig
export PKG_CONFIG_PATH

ok() { printf 'install-check: ok      %s\n' "$1"; }
fail() {
    printf 'install-check: FAILED  %s\n' "$1"
    [ -s "$T/log" ] && sed 's/^/    /' "$T/log"
    exit 1
}
run() {   # run WHAT CMD...: the command's output kept for the failure message
    what=$1
    shift
    "$@" >"$T/log" 2>&1 || fail "$what"
}

# 1. the plugin header alone
H=$P/include/crosscheck/xc_plugin.h
[ -f "$H" ] || { echo "no $H" >"$T/log"; fail "xc_plugin.h installed"; }
mkdir "$T/alone" && cp "$H" "$T/alone/"
run "xc_plugin.h alone: cc -std=c11 -pedantic -fsyntax-only" \
    $CC -std=c11 -pedantic $WARN -fsyntax-only -x c "$T/alone/xc_plugin.h"
ok "xc_plugin.h alone: cc -std=c11 -pedantic -fsyntax-only"
run "xc_plugin.h alone: c++ -fsyntax-only" $CXX -pedantic $WARN -fsyntax-only -x c++ "$T/alone/xc_plugin.h"
ok "xc_plugin.h alone: c++ -fsyntax-only"
$CC -std=c11 -H -fsyntax-only -x c "$T/alone/xc_plugin.h" 2>"$T/inc" >/dev/null
grep '^\.' "$T/inc" | sed 's/^\.* //' | grep -v '^/usr/' >"$T/log"
[ -s "$T/log" ] && fail "xc_plugin.h includes only system headers"
grep -q 'xc_' "$T/inc" && { grep 'xc_' "$T/inc" >"$T/log"; fail "xc_plugin.h includes only system headers"; }
ok "xc_plugin.h includes only system headers ($(grep -c '^\. ' "$T/inc") direct: stddef.h, stdint.h)"

# 2. the declared headers, each alone, and nothing undeclared
(cd "$P/include/crosscheck" && find . -type f | sed 's|^\./||' | sort) >"$T/installed"
{ echo xc_plugin.h; for h in "$@"; do echo "$h"; done; } | sort >"$T/declared"
diff "$T/declared" "$T/installed" >"$T/log" || fail "installed headers are the declared ones"
for h in "$@"; do
    printf '#include "%s"\n' "$h" >"$T/one.c"
    run "$h compiles alone against the installed headers" \
        $CC -std=c11 $WARN -fsyntax-only -I"$P/include/crosscheck" "$T/one.c"
done
ok "$(($# + 1)) headers installed, each compiles alone against the installed ones"

# 3. the example plugin out of tree
mkdir "$T/plugin" && cp "$ROOT/examples/plugin-dedisp/dedisp.c" "$ROOT/examples/plugin-dedisp/sp.c" \
    "$ROOT/examples/plugin-dedisp/Makefile" "$T/plugin/"
run "pkg-config --cflags --libs crosscheck" pkg-config --cflags --libs crosscheck
ok "pkg-config --cflags --libs crosscheck: $(tr ' ' '\n' <"$T/log" | grep crosscheck | tr '\n' ' ')"
run "cc \$(pkg-config --cflags --libs crosscheck) builds the example plugin out of tree" \
    sh -c "cd '$T/plugin' && $CC -std=c11 -O2 $WARN -fPIC -shared -o libcc.so dedisp.c \$(pkg-config --cflags --libs crosscheck) -lm"
ok "cc \$(pkg-config --cflags --libs crosscheck) builds the example out of tree"
run "the example's Makefile (C)" make -s -C "$T/plugin"
run "the example's Makefile (C++)" sh -c "cp -r '$T/plugin' '$T/pluginxx' && make -s -C '$T/pluginxx' clean && make -s -C '$T/pluginxx' CXX_BUILD=1"
ok "the example's Makefile builds it as C and as C++ (pkg-config)"
for so in "$T/plugin/libcc.so" "$T/plugin/libmydedisp.so" "$T/pluginxx/libmydedisp.so"; do
    run "the installed crosscheck loads $(basename "$so")" "$P/bin/crosscheck" list -plugin "$so"
    grep -q ' mydedisp ' "$T/log" || fail "the installed crosscheck lists mydedisp from $so"
done
ok "the installed crosscheck loads all three (list -plugin)"
for so in "$T/plugin/libmysp.so" "$T/pluginxx/libmysp.so"; do
    run "the installed crosscheck loads $(basename "$so")" "$P/bin/crosscheck" list -plugin "$so"
    grep -q ' mysp ' "$T/log" || fail "the installed crosscheck lists mysp from $so"
done
ok "the installed crosscheck loads the single-pulse example, built as C and as C++ (list -plugin)"

# 4. a program with the static library
cat >"$T/prog.c" <<'PROG'
#include <stdio.h>

#include "optimized/xc_impls.h"

int main(void)
{
    xc_registry *reg;
    xc_error err;
    if (xc_registry_builtin(&reg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("%zu dedispersers\n", xc_registry_count(reg, XC_FAMILY_DEDISPERSE));
    xc_registry_destroy(reg);
    return 0;
}
PROG
run "a program links libcrosscheck.a (pkg-config --static --libs)" \
    sh -c "$CC -std=c11 $WARN \$(pkg-config --cflags crosscheck) -o '$T/prog' '$T/prog.c' \$(pkg-config --static --libs crosscheck)"
run "the linked program runs" "$T/prog"
ok "a program links libcrosscheck.a and runs: $(cat "$T/log")"
