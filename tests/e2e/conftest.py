"""The browser tests share the web tests' helpers (tests/webtools.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
