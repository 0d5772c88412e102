"""``python -m core.cli``: the ``egx`` command."""

import sys

from core.cli import main

sys.exit(main())
