"""The table-engine service: runs hands of any game and keeps each live table in Redis.

``paiju.table.store`` is the storage layer: one versioned state key per table, changed only by
an all-or-nothing compare-and-set that also appends the table's events, moves its deadlines and
queues its settlements.
"""
