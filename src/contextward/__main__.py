"""``python -m contextward``: the same command line as the ``contextward`` script."""

from contextward.launcher import main

main()
