"""`arena bot new NAME --lang ...`: a new bot folder that plays legal moves and passes `arena bot check`.

Each template answers `hello`, plays a legal move for every `request`, ignores every other line,
and exits 0 on `quit` or end of input. Its move (replace `choose` with your strategy) is simple
but sensible, the same in every language: `draw` when it is legal, else the lowest card or run,
and `pickup` (or `chance`) only when nothing else is legal. The first move listed would be
`pickup` in every phase-2 answer: such a bot never goes out, and tables of them hit the cap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from arena.errors import ArenaError
from arena.submission.manifest import MANIFEST_NAME, NAME_RE

Language = Literal["python", "c", "js", "shell", "java"]  # `arena bot new --lang`'s choices
LANGUAGES: tuple[str, ...] = get_args(Language)


class ScaffoldError(ArenaError):
    """Bad name, unknown language, or a folder that already exists."""


_PY = '''"""{name}: a Skitgubbe bot (see protocol.md). Replace choose() with your strategy."""

import sys


def choose(moves, view):
    """moves: the legal moves (tokens); view: dict of the request's key=value fields."""
    if "draw" in moves:
        return "draw"  # phase 1: draw, then choose from 4 cards, rather than play one blind
    # The lowest card or run (a run by its first, lowest card). The hand is sorted low to high
    # (ace_high included), so a card's place in it is its rank. pickup and chance are not in the
    # hand: they come last, played only when nothing else is legal.
    hand = view.get("hand", "-").split(",")

    def rank(move):
        card = move.split(",")[0]
        return hand.index(card) if card in hand else len(hand)

    return min(moves, key=rank)


def main():
    for line in sys.stdin:
        t = line.split()
        if not t:
            continue
        if t[0] == "hello":
            print("hello name={name} version=0.1", flush=True)
        elif t[0] == "request":  # request <id> <count> <move_1> ... <move_count> <field>=<value> ...
            count = int(t[2])
            moves = t[3:3 + count]
            view = dict(f.split("=", 1) for f in t[3 + count:] if "=" in f)
            print(f"move {{t[1]}} {{choose(moves, view)}}", flush=True)
        elif t[0] == "quit":
            break
        # every other line (match, game, event, fault, gameover, matchover) is ignored here
        # debug output goes to stderr only: print("...", file=sys.stderr)


if __name__ == "__main__":
    main()
'''

_C = r'''/* {name}: a Skitgubbe bot (see protocol.md). Replace choose() with your strategy. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The legal moves are tokens 3 .. 3+count-1 of the request line; hand is the view's hand=.
   Phase 1: draw (then choose from 4 cards) rather than play one blind. Otherwise the lowest card
   or run (a run by its first, lowest card): the hand is sorted low to high (ace_high included),
   so the earlier a card is in it, the lower. pickup and chance are not in the hand: they are
   played only when nothing else is legal. */
static const char *choose(char **moves, int count, const char *hand) {{
    const char *best = moves[0];
    const char *best_at = NULL;
    for (int i = 0; i < count; i++) {{
        if (strcmp(moves[i], "draw") == 0) return moves[i];
        char card[3] = {{moves[i][0], moves[i][1], 0}};  /* a move's first card */
        const char *at = strstr(hand, card);
        if (at && (!best_at || at < best_at)) {{
            best = moves[i];
            best_at = at;
        }}
    }}
    return best;
}}

int main(void) {{
    char *line = NULL;
    size_t cap = 0;
    char **tok = NULL;
    size_t tokcap = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (getline(&line, &cap, stdin) != -1) {{
        size_t n = 0;
        for (char *p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {{
            if (n == tokcap) {{
                tokcap = tokcap ? tokcap * 2 : 64;
                tok = realloc(tok, tokcap * sizeof *tok);
                if (!tok) return 1;
            }}
            tok[n++] = p;
        }}
        if (n == 0) continue;
        if (strcmp(tok[0], "hello") == 0) {{
            printf("hello name={name} version=0.1\n");
        }} else if (strcmp(tok[0], "request") == 0 && n >= 4) {{
            int count = atoi(tok[2]);
            if (count < 1 || (size_t)(3 + count) > n) continue;
            const char *hand = "-";
            for (size_t i = 3 + count; i < n; i++)
                if (strncmp(tok[i], "hand=", 5) == 0) hand = tok[i] + 5;
            printf("move %s %s\n", tok[1], choose(tok + 3, count, hand));
        }} else if (strcmp(tok[0], "quit") == 0) {{
            break;
        }}
        fflush(stdout);
    }}
    free(tok);
    free(line);
    return 0;
}}
'''

_MAKEFILE = '''CC ?= cc
CFLAGS ?= -std=c99 -O2 -Wall -Wextra

{name}: {name}.c
\t$(CC) $(CFLAGS) -o $@ {name}.c

clean:
\trm -f {name}

.PHONY: clean
'''

_JS = '''// {name}: a Skitgubbe bot (see protocol.md). Replace choose() with your strategy.
"use strict";
const readline = require("readline");

// moves: the legal moves (tokens); view: the request's key=value fields.
function choose(moves, view) {{
  if (moves.includes("draw")) return "draw"; // phase 1: draw, then choose from 4 cards, not one blind
  // The lowest card or run (a run by its first, lowest card). The hand is sorted low to high
  // (ace_high included), so a card's place in it is its rank. pickup and chance are not in the
  // hand: they come last, played only when nothing else is legal.
  const hand = (view.hand || "-").split(",");
  const rank = (move) => {{
    const i = hand.indexOf(move.split(",")[0]);
    return i < 0 ? hand.length : i;
  }};
  return moves.reduce((best, move) => (rank(move) < rank(best) ? move : best));
}}

const rl = readline.createInterface({{ input: process.stdin, terminal: false }});
rl.on("line", (line) => {{
  const t = line.trim().split(/\\s+/);
  if (t[0] === "hello") {{
    process.stdout.write("hello name={name} version=0.1\\n");
  }} else if (t[0] === "request") {{
    const count = parseInt(t[2], 10);
    const moves = t.slice(3, 3 + count);
    const view = {{}};
    for (const f of t.slice(3 + count)) {{
      const i = f.indexOf("=");
      if (i > 0) view[f.slice(0, i)] = f.slice(i + 1);
    }}
    process.stdout.write(`move ${{t[1]}} ${{choose(moves, view)}}\\n`);
  }} else if (t[0] === "quit") {{
    rl.close();
  }}
}});
rl.on("close", () => process.exit(0));
'''

_SH = '''#!/bin/sh
# {name}: a Skitgubbe bot in POSIX sh + awk (see protocol.md). Its move: draw when it may (phase 1:
# then it chooses from 4 cards, not one blind), else the lowest card or run. The hand= field is
# sorted low to high (ace_high included), so the earlier a move's first card is in it, the lower;
# pickup and chance are not in it (index 0) and are played only when nothing else is legal.
# fflush() after every answer; mawk needs -W interactive to read its input line by line.
# Diagnostics go to stderr only.
if awk -W version 2>/dev/null | grep -qi mawk; then
    set -- -W interactive
else
    set --
fi
exec awk "$@" '{{ sub(/\\r$/, "") }}
$1 == "hello"   {{ print "hello name={name} version=0.1"; fflush(); next }}
$1 == "request" {{  # request <id> <count> <move_1> ... <move_count> <field>=<value> ...
    hand = "-"
    for (i = 4 + $3; i <= NF; i++) if ($i ~ /^hand=/) hand = substr($i, 6)
    best = $4; best_at = 0
    for (i = 4; i < 4 + $3; i++) {{
        if ($i == "draw") {{ best = $i; break }}
        at = index(hand, substr($i, 1, 2))
        if (at > 0 && (best_at == 0 || at < best_at)) {{ best = $i; best_at = at }}
    }}
    print "move " $2 " " best; fflush(); next
}}
$1 == "quit"    {{ exit 0 }}'
'''


_JAVA = r'''// {name}: a Skitgubbe bot (see protocol.md). Replace choose() with your strategy.
// Built by `javac -d out Bot.java` (the manifest's build step); diagnostics go to System.err only.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Bot {{
    /** moves: the legal moves (tokens); view: the request's key=value fields. */
    static String choose(List<String> moves, Map<String, String> view) {{
        if (moves.contains("draw")) return "draw";  // phase 1: draw, then choose from 4 cards, not one blind
        // The lowest card or run (a run by its first, lowest card). The hand is sorted low to high
        // (ace_high included), so a card's place in it is its rank. pickup and chance are not in
        // the hand: they come last, played only when nothing else is legal.
        List<String> hand = Arrays.asList(view.getOrDefault("hand", "-").split(","));
        String best = moves.get(0);
        int bestRank = Integer.MAX_VALUE;
        for (String move : moves) {{
            int rank = hand.indexOf(move.split(",")[0]);
            if (rank >= 0 && rank < bestRank) {{
                best = move;
                bestRank = rank;
            }}
        }}
        return best;
    }}

    public static void main(String[] args) throws IOException {{
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {{
            String[] t = line.trim().split("\\s+");
            if (t[0].equals("hello")) {{
                out.print("hello name={name} version=0.1\n");
                out.flush();  // every answer: the arena waits for the whole line
            }} else if (t[0].equals("request")) {{  // request <id> <count> <move_1> ... <field>=<value> ...
                int count = Integer.parseInt(t[2]);
                List<String> moves = Arrays.asList(t).subList(3, 3 + count);
                Map<String, String> view = new HashMap<>();
                for (int i = 3 + count; i < t.length; i++) {{
                    int eq = t[i].indexOf('=');
                    if (eq > 0) view.put(t[i].substring(0, eq), t[i].substring(eq + 1));
                }}
                out.print("move " + t[1] + " " + choose(moves, view) + "\n");
                out.flush();
            }} else if (t[0].equals("quit")) {{
                break;
            }}
            // every other line (match, game, event, fault, gameover, unknown types) is ignored
        }}
        System.exit(0);
    }}
}}
'''


def _files(name: str, lang: str) -> tuple[dict[str, str], dict[str, object]]:
    """(files, manifest fields) for one language."""
    if lang == "python":
        return {"bot.py": _PY.format(name=name)}, dict(language="python", command=["{python}", "bot.py"])
    if lang == "c":
        return ({f"{name}.c": _C.format(name=name), "Makefile": _MAKEFILE.format(name=name), ".gitignore": f"{name}\n"},
                dict(language="c", build=["make", "-s"], command=[f"./{name}"]))
    if lang == "js":
        return {"bot.js": _JS.format(name=name)}, dict(language="javascript", command=["node", "bot.js"])
    if lang == "shell":
        return {"bot.sh": _SH.format(name=name)}, dict(language="sh", command=["sh", "bot.sh"])
    if lang == "java":
        # A JVM reserves more address space than the sandbox's default 1024 MB gives a process,
        # and does not start under it; the serial collector keeps its threads and memory small.
        return ({"Bot.java": _JAVA.format(name=name), ".gitignore": "out/\n"},
                dict(language="java", build=["javac", "-d", "out", "Bot.java"],
                     command=["java", "-XX:+UseSerialGC", "-Xmx256m", "-cp", "out", "Bot"],
                     limits={"address_space_mb": 4096}))
    raise ScaffoldError(f"unknown language {lang!r}; choose one of: {', '.join(LANGUAGES)}")


def _toml_value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def manifest_text(name: str, fields: dict[str, object]) -> str:
    lines = [f"name = {_toml_value(name)}"]
    for key in ("language", "build", "command"):
        if key in fields:
            lines.append(f"{key} = {_toml_value(fields[key])}")
    lines.append('transport = "pipe"')
    lines.append(f'description = "{name}: draws when it may, else plays its lowest legal card or run '
                 '(scaffold from arena bot new)."')
    limits = fields.get("limits")
    if isinstance(limits, dict) and limits:  # the [limits] table (_files gives it as a dict)
        lines += ["", "[limits]"] + [f"{key} = {value}" for key, value in limits.items()]
    return "\n".join(lines) + "\n"


def validate_name(name: str) -> None:
    if not NAME_RE.match(name or "") or name in (".", ".."):
        raise ScaffoldError(f"{name!r} is not a valid bot name: use 1-32 characters of A-Z a-z 0-9 _ . -, not starting with a dot")


def new_bot(name: str, lang: str, bots_dir: Path) -> Path:
    """Write bots_dir/name/ with bot.toml and the source; never overwrites. Returns the folder."""
    validate_name(name)
    lang = lang.lower()
    if lang in ("javascript", "node"):
        lang = "js"
    if lang in ("sh",):
        lang = "shell"
    files, fields = _files(name, lang)
    target = Path(bots_dir) / name
    if target.exists():
        raise ScaffoldError(f"{target} already exists; pick another name or remove it first")
    target.mkdir(parents=True)
    (target / MANIFEST_NAME).write_text(manifest_text(name, fields), encoding="utf-8")
    for rel, text in files.items():
        path = target / rel
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".sh"):
            path.chmod(0o755)
    return target


__all__ = ["LANGUAGES", "Language", "ScaffoldError", "new_bot", "validate_name"]
