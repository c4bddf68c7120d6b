"""`python -m arena` runs the same CLI as the `arena` console script."""

from arena.console import main

main()
