"""`arena bot new NAME --lang ...`: a new bot folder that plays legal moves and passes `arena bot check`.

Each template answers `hello`, plays a legal move for every `request` (the first one listed:
replace `choose` with your strategy), ignores every other line, and exits 0 on `quit` or end of input.
"""

from __future__ import annotations

from pathlib import Path

from arena.errors import ArenaError
from arena.submission.manifest import MANIFEST_NAME, NAME_RE

LANGUAGES = ("python", "c", "js", "shell", "java")


class ScaffoldError(ArenaError):
    """Bad name, unknown language, or a folder that already exists."""


_PY = '''"""{name}: a Skitgubbe bot (see protocol.md). Replace choose() with your strategy."""

import sys


def choose(moves, view):
    """moves: the legal moves (tokens); view: dict of the request's key=value fields."""
    return moves[0]


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

/* The legal moves are tokens 3 .. 3+count-1 of the request line. */
static const char *choose(char **moves, int count) {{
    (void)count;
    return moves[0];
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
            printf("move %s %s\n", tok[1], choose(tok + 3, count));
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

function choose(moves, view) {{
  return moves[0];
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
# {name}: a Skitgubbe bot in POSIX sh + awk (see protocol.md). Plays the first legal move.
# fflush() after every answer; mawk needs -W interactive to read its input line by line.
# Diagnostics go to stderr only.
if awk -W version 2>/dev/null | grep -qi mawk; then
    set -- -W interactive
else
    set --
fi
exec awk "$@" '{{ sub(/\\r$/, "") }}
$1 == "hello"   {{ print "hello name={name} version=0.1"; fflush(); next }}
$1 == "request" {{ print "move " $2 " " $4; fflush(); next }}
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
        return moves.get(0);
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
    lines.append(f'description = "{name}: plays the first legal move (scaffold from arena bot new)."')
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


__all__ = ["LANGUAGES", "ScaffoldError", "new_bot", "validate_name"]
