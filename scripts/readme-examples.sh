#!/bin/sh
# Runs the README's examples, in order, as a new user would type them.
#
#   sh scripts/readme-examples.sh [-long | -all] [-bin DIR] [-keep] [README.md]
#
# Which examples: the fenced blocks whose info string is `sh` (run by
# `make test`), `sh long` (run with -long or -all: `make test-readme-long`);
# `sh norun` blocks are shown and never run (they need your own tool, another
# machine, or are `make run`/`make test` themselves).  A command is one line,
# with its backslash-continued lines; lines that are only a comment are
# skipped.  A trailing comment "# exit N" (the first "exit N" in the comment)
# is the status the command must give; otherwise it must give 0.
#
# Where: a new temporary folder holding links to the repository's bin/,
# datasets/ and examples/, as a clone's root would; `crosscheck` is DIR's
# (default: the repository's bin/), and `make TARGET` runs in the repository.
# Prints each command with its status and seconds; at the first command whose
# status is not the expected one, prints the README line, the command, the
# status and the end of its output, and exits 1.  Exit 2: bad usage or no
# example found.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tier=default
bin="$root/bin"
keep=0
readme="$root/README.md"
while [ $# -gt 0 ]; do
    case "$1" in
    -long) tier=long ;;
    -all) tier=all ;;
    -bin) [ $# -ge 2 ] || { echo "readme-examples: -bin needs a folder" >&2; exit 2; }
          bin=$(cd "$2" 2>/dev/null && pwd) || { echo "readme-examples: -bin $2: no such folder" >&2; exit 2; }
          shift ;;
    -keep) keep=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "readme-examples: unknown option $1" >&2; exit 2 ;;
    *) readme="$1" ;;
    esac
    shift
done
[ -r "$readme" ] || { echo "readme-examples: $readme: cannot read" >&2; exit 2; }
[ -x "$bin/crosscheck" ] || { echo "readme-examples: $bin/crosscheck: not built (run make)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/readme-examples.XXXXXX") || exit 2
if [ "$keep" = 1 ]; then
    echo "readme-examples: working in $work (kept)"
else
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
fi
for d in bin datasets examples; do
    [ -e "$root/$d" ] && ln -s "$root/$d" "$work/$d"
done

# The commands, one per record: "LINE<TAB>TIER<TAB>COMMAND" (continuations
# joined with their backslashes removed).
awk -v want="$tier" '
    BEGIN { inb = 0; cont = 0 }
    /^```/ {
        if (!inb) {
            info = substr($0, 4); n = split(info, w, /[ \t]+/)
            inb = 1; run = 0; t = "default"
            if (w[1] == "sh") {
                run = 1
                for (i = 2; i <= n; i++) { if (w[i] == "norun") run = 0; if (w[i] == "long") t = "long" }
            }
            if (run && !(want == "all" || want == t)) run = 0
        } else { inb = 0; cont = 0 }
        next
    }
    inb && run {
        line = $0
        if (!cont) { if (line ~ /^[ \t]*(#|$)/) next; start = NR; cmd = "" }
        if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); cmd = cmd line " "; cont = 1; next }
        cmd = cmd line; cont = 0
        printf "%d\t%s\t%s\n", start, t, cmd
    }
' "$readme" > "$work/.commands" || exit 2
total=$(wc -l < "$work/.commands")
if [ "$total" -eq 0 ]; then
    echo "readme-examples: $readme: no \`\`\`sh example of tier $tier" >&2
    exit 2
fi

PATH="$bin:$PATH"; export PATH
make() { command make -C "$root" --no-print-directory "$@"; }
k=0; t_all=$(date +%s.%N)
while IFS="$(printf '\t')" read -r line t cmd; do
    k=$((k + 1))
    want=$(printf '%s\n' "$cmd" | sed -n 's/.*#[^#]*\bexit \([0-9][0-9]*\).*/\1/p')
    [ -n "$want" ] || want=0
    t0=$(date +%s.%N)
    (cd "$work" && eval "$cmd") > "$work/.out" 2>&1 < /dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    short=$(printf '%s' "$cmd" | sed 's/[ \t]*#.*//; s/  */ /g' | cut -c1-100)
    if [ "$rc" -ne "$want" ]; then
        echo "readme-examples: FAILED $readme:$line: exit $rc (expected $want) after ${secs}s:"
        echo "    $cmd"
        echo "  its output (last 30 lines):"
        tail -n 30 "$work/.out" | sed 's/^/    /'
        exit 1
    fi
    printf 'readme-examples: ok %2d/%d  %6ss  exit %d  %s\n' "$k" "$total" "$secs" "$rc" "$short"
done < "$work/.commands"
secs=$(awk -v a="$t_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "readme-examples: $total examples of tier $tier passed in ${secs}s"
