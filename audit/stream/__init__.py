"""The stream: an input's lines read, decoded, accounted for and dispatched to the tables.

``inputs`` reads the files (gzip, hashing), ``replay`` turns lines into events for the tables,
``clock`` holds the log's time order, ``parts`` splits an input's tables among ``--jobs`` processes.
"""
