"""The `arena` command line: the Typer app (`app`), one module per command group (`play`,
`tournament`, `reports`, `games`, `bot`), the helpers they share (`common`, `open_tournament`)
and the console script's entry (`console`). Typer lives here only, Rich here and in the report
layer. Commands are thin: each parses its input, calls into the layers below (any of them) and
says what happened; nothing below imports this package.
"""
