#!/bin/sh
# shell_bot: a legal-move Skitgubbe bot in POSIX sh + awk, protocol v1 on stdin/stdout.
#
# Answers `hello ...` with `hello name=shell_bot ...`, answers
# `request <id> <count> <move_1> ... <fields...>` with its last legal move (field 3 + count): in phase 2 that plays cards rather than picking up,
# ignores every other message, and exits 0 on `quit` or end of input.
# fflush() after every answer: awk's stdout to a pipe is otherwise block-buffered.
# mawk (Debian's default awk) also reads its input in blocks and would sit on a waiting
# request: `-W interactive` makes it read line by line. gawk and BSD awk read pipes line by line.
# Diagnostics go to stderr only.
if awk -W version 2>/dev/null | grep -qi mawk; then
    set -- -W interactive
else
    set --
fi
exec awk "$@" '
{ sub(/\r$/, "") }
$1 == "hello" {
    print "hello name=shell_bot version=1.0 author=skitgubbe-arena"
    fflush()
    next
}
$1 == "request" {
    if (NF < 4 || $3 + 0 < 1) {
        print "shell_bot: malformed request: " $0 > "/dev/stderr"
        next
    }
    print "move " $2 " " $(3 + $3)
    fflush()
    next
}
$1 == "quit" { exit 0 }
'
