"""The store's versioned migrations (Alembic): ``versions/`` holds one file per schema version.

Shipped inside the package, so an installed ``audit`` migrates a store without a checkout."""
