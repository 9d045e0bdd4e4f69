"""``python -m peproof`` is the ``peproof`` command."""

import sys

from peproof.cli import main

sys.exit(main())
