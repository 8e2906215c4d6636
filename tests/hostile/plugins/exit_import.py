"""SystemExit(0) at import: would end `arena` with status 0 if it were imported by the driver."""

raise SystemExit(0)
