"""`python -m tunetab ...` runs the packaged binary, as `tunetab ...` does."""
import sys

from tunetab import main

sys.exit(main())
