"""`python -m gradplay` (installed) or `python -m playground` (in the repository): the CLI."""

import sys

from .cli import main

sys.exit(main())
