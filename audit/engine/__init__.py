"""The replay engine: table, shoe and round state machines that turn events into findings."""
