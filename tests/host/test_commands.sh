#!/usr/bin/env bash
# tslackctl's command list lives in its command table (src/tslackctl/main.c),
# which --help is made from: the usage text, the bash completion and the
# man page's synopsis must name the same commands, no more, no fewer. On
# the host: --help loads nothing. Prints PASS/FAIL lines for the summary.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check() { if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1: got '$3', want '$2'"; fi; }
words() { tr ' \t' '\n\n' | grep -E '^[a-z][a-z-]*$' | sort -u | paste -s -d ' '; }

# The table's rows, { "name", "options", usage, cmd_handler }: a row starts
# with its name and options on a line of their own.
table=$(grep -E '^	\{ "[a-z-]+", "[a-zA-Z]*",$' "$top/src/tslackctl/main.c" |
	sed -E 's/^	\{ "([a-z-]+)".*/\1/' | words)
[ -n "$table" ] || { echo "FAIL commands/table: no command table in src/tslackctl/main.c"; exit 1; }

usage=$("$top/build/tslackctl" --help | sed -n '/^Commands:/,/^$/p' |
	sed -n -E 's/^  ([a-z-]+)( .*)?$/\1/p' | words)
check commands/usage "$table" "$usage"

# The words offered before a command is typed: the first compgen -W '...'
# after the test for no command, which may span lines.
completion=$(awk '/-z \$cmd/ { on = 1 } on && /compgen -W '"'"'/ { sub(/.*compgen -W '"'"'/, ""); in_w = 1 }
	in_w { if (sub(/'"'"'.*/, "")) { print; exit } print }' "$top/dist/tslackctl.bash" | words)
check commands/completion "$table" "$completion"

man=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$top/src/tslackctl/tslackctl.8" |
	sed -n -E 's/^\.B (tslackctl )?([a-z-]+)$/\2/p; s/^\.B tslackctl ([a-z-]+)( .*)?$/\1/p' |
	grep -v '^tslackctl$' | words)
check commands/man_synopsis "$table" "$man"
exit 0
