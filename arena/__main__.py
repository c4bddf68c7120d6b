"""`python -m arena` runs the same CLI as the `arena` console script."""

from arena.cli.console import main

main()
