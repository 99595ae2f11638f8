"""`python -m memesh`: the `memesh` command line, for when the console script is not on PATH."""

import sys

from memesh.transports.cli.app import main

sys.exit(main())
