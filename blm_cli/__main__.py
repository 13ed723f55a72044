"""``python -m blm_cli …`` runs the ``blm`` command."""

import sys

from blm_cli.main import main

sys.exit(main())
