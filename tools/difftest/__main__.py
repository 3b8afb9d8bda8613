"""Command line: see tools/difftest/__init__.py."""

import sys

from tools.difftest.cli import main

sys.exit(main())
