#!/usr/bin/env bash
# The documentation lists what the binary takes: every option that a
# command's --help names (every command of 'nncert --help') appears in the README's command synopsis (## Commands)
# and in the man page (man/nncert.1), and every command of 'nncert --help'
# has a synopsis line in both.
. "$(dirname "$0")/lib.bash"
SYN=$(awk '/^## Commands/,/^Every command takes/' README.md)
MAN=$(cat man/nncert.1)
cmds=$("$NNCERT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }')
[ -n "$cmds" ] && pass docs-commands-listed || fail "docs-commands-listed (nncert --help lists none)"
bad=0
for c in $(tr '|' ' ' <<<"$cmds"); do
    grep -q "^nncert $c\b" <<<"$SYN" || { fail "docs-readme-synopsis ($c: no 'nncert $c' line)"; bad=1; }
    mc=$(sed 's/-/\\\\-/g' <<<"$c")
    grep -qE "^\.BI? \"?$mc\b" <<<"$MAN" || { fail "docs-man-synopsis ($c: no .B or .BI entry)"; bad=1; }
done
[ $bad = 0 ] && pass docs-every-command-in-synopses
missing=0
# every command 'nncert --help' lists (none left out by hand), and spec's subcommand
cmdlist=()
for c in $(tr '|' ' ' <<<"$cmds"); do
    [ "$c" = spec ] && c="spec linf"
    cmdlist+=("$c")
done
grep -qw bounds <<<"$cmds" && grep -qw bench <<<"$cmds" && pass docs-option-check-covers-bounds-and-bench ||
    fail "docs-option-check-covers-bounds-and-bench (commands: $cmds)"
for c in "${cmdlist[@]}"; do
    # shellcheck disable=SC2086
    for o in $("$NNCERT" $c --help 2>&1 | grep -oE -- "--[a-z][a-z0-9-]*" | sort -u); do
        [ "$o" = --help ] || [ "$o" = --opt ] && continue # --opt=value, the generic form
        grep -qe "$o" <<<"$SYN" || { fail "docs-readme-option ($c $o)"; missing=1; }
        grep -qe "$(sed 's/-/\\\\-/g' <<<"$o")" <<<"$MAN" || { fail "docs-man-option ($c $o)"; missing=1; }
    done
done
[ $missing = 0 ] && pass docs-every-option-documented
