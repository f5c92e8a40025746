"""One class per device behind a common interface."""
