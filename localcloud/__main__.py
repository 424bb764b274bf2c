"""``python3 -m localcloud up|down|status|env|node`` (what ``tools/localcloud`` runs)."""

import sys

from localcloud.cli import main

sys.exit(main(sys.argv[1:]))
