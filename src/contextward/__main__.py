"""``python -m contextward``: the same command line as the ``contextward`` script."""

from contextward.cli import main

main()
