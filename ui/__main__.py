"""`python -m ui` = `rag serve` (ui/server.py)."""

import sys

from ui.server import main

sys.exit(main())
