"""The `arena` command line: the Typer app (`app`), one module per command group (`play`,
`tournament`, `reports`, `games`, `bot`), the helpers they share (`common`) and the console
script's entry (`console`). Typer lives here only, Rich here and in the report layer. Commands are
thin: each parses its input, calls into the layers below (any of them) and says what happened;
an ArenaError from below ends a command in its own sentence, in one place (`common.worded`).
Nothing below imports this package.
"""
