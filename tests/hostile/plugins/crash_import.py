"""Ends its own process at import (no exception to catch): its discovery child dies."""

import os

os._exit(0)
